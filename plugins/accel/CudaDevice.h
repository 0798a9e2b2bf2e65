#pragma once
// The CUDA backend of the device layer (Device.h), built only where CMake
// finds a CUDA compiler (LANES_ACCEL_CUDA=1). It maps the interface onto the
// CUDA runtime of device 0:
//
//   Queue       a cudaStream_t created non-blocking (no implicit sync with the default stream)
//   Marker      a cudaEvent_t (timing off, blocking-sync: HostWait::Block sleeps, Spin polls)
//   copies      cudaMemcpyAsync between device memory and pinned host memory
//   kernel      one thread that spins for the requested seconds in clock64()
//               cycles at the device's clock rate, then writes the digest of Digest.h
//   onDone      a stream callback (cudaStreamAddCallback)
//   buffers     stream-ordered allocations from the device's memory pool, kept cached
//   --trace     each copy and kernel between two timing events on its stream (CudaTrace.h)
//
// How it differs from the emulated device:
// - The sticky failure of a queue is a word in pinned host memory that the
//   kernels of the queue check: a kernel after a failure returns at once,
//   but copies after it still run (their results are never read, since every
//   later marker and callback reports the failure).
// - An injected fault (Kernel::fault) is that word set by the kernel, not a
//   device exception (__trap() would break the CUDA context of the whole
//   process, failing every queue and naming the wrong module). A real device
//   error does break the context: every queue then reports it.
// - The kernel's duration assumes the SM runs at the clock rate the device
//   reports; at lower clocks it runs longer.
// - The device's own resources (kernel slots, copy engines, launch cost) are
//   those of the GPU, not options.

#include <memory>

#include "accel/Device.h"

namespace lanes::accel {

// CUDA device 0. Thread-safe, as Device says; its queues, buffers, markers
// and host words must be dropped before it. Throws lanes::Exception if there
// is no usable CUDA device.
std::unique_ptr<Device> makeCudaDevice();

}  // namespace lanes::accel
