#pragma once
// CUDA runtime statuses as lanes::Exception, for the CUDA backend's files
// (compiled by nvcc only).

#include <cuda_runtime.h>

#include <string>

#include "lanes/core/Exception.h"

namespace lanes::accel {

inline void check(cudaError_t status, std::string const& what) {
  if (status != cudaSuccess) throw Exception("CUDA: " + what + " failed: " + cudaGetErrorString(status));
}

}  // namespace lanes::accel
