#pragma once
// ROOT's numeric types (EDataType) as the C++ types of their values: what
// the serializers dispatch on to handle a std::vector of numbers without a
// collection proxy.

#include <TDataType.h>

namespace lanes::rootio {

// visit(T{}) for the C++ type T of numeric type `type`, or `otherwise` for a
// type that is no plain number: bool, Double32_t and Float16_t (stored
// narrower than their C++ type), a string, ...
template <typename Result, typename Visit>
Result visitNumberType(EDataType type, Visit visit, Result otherwise) {
  switch (type) {
    case kChar_t:
      return visit(Char_t{});
    case kUChar_t:
      return visit(UChar_t{});
    case kShort_t:
      return visit(Short_t{});
    case kUShort_t:
      return visit(UShort_t{});
    case kInt_t:
      return visit(Int_t{});
    case kUInt_t:
      return visit(UInt_t{});
    case kLong_t:
      return visit(Long_t{});
    case kULong_t:
      return visit(ULong_t{});
    case kLong64_t:
      return visit(Long64_t{});
    case kULong64_t:
      return visit(ULong64_t{});
    case kFloat_t:
      return visit(Float_t{});
    case kDouble_t:
      return visit(Double_t{});
    default:
      return otherwise;
  }
}

}  // namespace lanes::rootio
