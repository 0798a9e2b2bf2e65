#pragma once
// serialization=unrolled (see Serialization.h): a product written member by
// member from its class's TStreamerInfo, without TBufferFile's framing.

#include <memory>
#include <string>

#include "root/RootSupport.h"
#include "root/Serialization.h"

namespace lanes::rootio {

// Throws lanes::ConfigurationError naming the product, class and member that
// unrolled serialisation cannot handle.
std::unique_ptr<ProductSerializer> makeUnrolledSerializer(RootType const& type, std::string const& label);

}  // namespace lanes::rootio
