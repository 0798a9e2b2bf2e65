#pragma once
// The process's accelerator settings: which backend runs the accelerator
// modules and how they complete (the five strategies of the CMS study of GPU
// work scheduling). The command line sets them once, before the job is built
// (`lanes run --accel emulated:slots=4 --accel-strategy waiting-pool`); every
// accelerator module reads them when it is constructed.

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "accel/EmulatedDevice.h"

namespace lanes::accel {

enum class Backend {
  None,      // every accelerator module runs its CPU implementation
  Emulated,  // EmulatedDevice
  Cuda,      // CudaDevice, where built
};

// In ExternalWorkerD2H and WaitingPool a device fault reaches the framework
// through the first module after it that waits: a module on the same queue
// (faults stick to their queue) or on another that waits on its marker, up to
// the module that copies device->host. A chain must therefore end with a copy
// to the host (every chain of examples/hlt-like.toml does); a device product
// that only an output keeps is never waited for, so a fault in it would go
// unseen, as it would in CMSSW.
enum class Strategy {
  SyncSingle,         // one queue for the whole job; each module blocks until it drains
  SyncMulti,          // a queue per module chain; each module blocks until its work is done
  ExternalWorker,     // no blocking: a host callback completes each module
  ExternalWorkerD2H,  // only modules that copy device->host wait (by callback); the others just enqueue
  WaitingPool,        // like ExternalWorkerD2H, completed by a pool of threads blocked on markers
};

char const* toString(Backend backend);
char const* toString(Strategy strategy);

// Immutable value type.
struct Settings {
  Backend backend = Backend::None;
  EmulatedConfig emulated;
  Strategy strategy = Strategy::ExternalWorker;
  unsigned maxQueues = 0;       // queues the job may use; 0: as many as it needs
  unsigned waitingThreads = 2;  // the waiting pool's threads

  // `spec` is a backend SPEC: none, cuda or emulated (options: those of
  // EmulatedConfig), each device taking queues=N; `strategy` a strategy
  // name, waiting-pool taking an option (waiting-pool:threads=2).
  // Throws lanes::Exception for an unknown name or a bad option.
  static Settings parse(std::string const& spec, std::string const& strategy);
};

// {backend, strategy, max_queues, waiting_threads (waiting-pool), and the
// emulated device's slots, h2d_bytes_per_s, d2h_bytes_per_s, launch_s}: the
// run report's `accel` section, which `lanes model` reads.
nlohmann::json toJson(Settings const& settings);

// Externally synchronised: set by the single thread that parses the command
// line, before any module is constructed; read by module constructors.
void setSettings(Settings const& settings);
Settings const& settings();

// Whether the CUDA backend is part of this build.
bool cudaBuilt();

// A device for `settings` (emulated or cuda). Throws lanes::Exception if
// the backend finds no device.
std::unique_ptr<Device> makeDevice(Settings const& settings);

}  // namespace lanes::accel
