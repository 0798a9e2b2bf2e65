#include "accel/Settings.h"

#include "lanes/core/Exception.h"
#include "lanes/core/Options.h"
#include "lanes/core/PluginOptions.h"

#if LANES_ACCEL_CUDA
#include "accel/CudaDevice.h"
#endif

namespace lanes::accel {
namespace {

Settings& current() {
  static Settings settings;
  return settings;
}

constexpr Strategy kStrategies[] = {Strategy::SyncSingle, Strategy::SyncMulti, Strategy::ExternalWorker,
                                    Strategy::ExternalWorkerD2H, Strategy::WaitingPool};

std::string strategyNames() {
  std::string names;
  for (auto strategy : kStrategies) names += std::string(names.empty() ? "" : ", ") + toString(strategy);
  return names;
}

Strategy strategyNamed(std::string const& name) {
  for (auto strategy : kStrategies) {
    if (name == toString(strategy)) return strategy;
  }
  throw Exception("unknown accelerator strategy '" + name + "' (known: " + strategyNames() + ")");
}

Backend backendNamed(std::string const& name) {
  for (auto backend : {Backend::None, Backend::Emulated, Backend::Cuda}) {
    if (name == toString(backend)) return backend;
  }
  throw Exception("unknown accelerator backend '" + name + "' (known: none, emulated, cuda)");
}

}  // namespace

char const* toString(Backend backend) {
  switch (backend) {
    case Backend::None: return "none";
    case Backend::Emulated: return "emulated";
    case Backend::Cuda: return "cuda";
  }
  return "?";
}

char const* toString(Strategy strategy) {
  switch (strategy) {
    case Strategy::SyncSingle: return "sync-single";
    case Strategy::SyncMulti: return "sync-multi";
    case Strategy::ExternalWorker: return "external-worker";
    case Strategy::ExternalWorkerD2H: return "external-worker-d2h";
    case Strategy::WaitingPool: return "waiting-pool";
  }
  return "?";
}

Settings Settings::parse(std::string const& spec, std::string const& strategy) {
  Settings settings;
  auto backend = PluginSpec::parse(spec);
  backend.options.setOwner("--accel");
  settings.backend = backendNamed(backend.name);
  if (settings.backend == Backend::Cuda && !cudaBuilt()) {
    throw Exception("accelerator backend 'cuda' is not in this build (no CUDA toolkit was found when it was configured)");
  }
  PluginOptions const backendOptions(backend.options, backend.name);
  if (settings.backend == Backend::Emulated) settings.emulated = EmulatedConfig::fromOptions(backendOptions);
  if (settings.backend != Backend::None) settings.maxQueues = static_cast<unsigned>(backendOptions.count("queues", 0, PluginOptions::kMaxConcurrency));
  backend.options.requireAllUsed();

  auto chosen = PluginSpec::parse(strategy);
  chosen.options.setOwner("--accel-strategy");
  settings.strategy = strategyNamed(chosen.name);
  if (settings.strategy == Strategy::WaitingPool) {
    settings.waitingThreads = static_cast<unsigned>(PluginOptions(chosen.options, chosen.name).positive("threads", settings.waitingThreads, PluginOptions::kMaxConcurrency));
  }
  chosen.options.requireAllUsed();
  return settings;
}

nlohmann::json toJson(Settings const& settings) {
  nlohmann::json json = {{"backend", toString(settings.backend)},
                         {"strategy", toString(settings.strategy)},
                         {"max_queues", settings.maxQueues}};
  if (settings.strategy == Strategy::WaitingPool) json["waiting_threads"] = settings.waitingThreads;
  if (settings.backend == Backend::Emulated) {
    auto const& device = settings.emulated;
    json.update({{"slots", device.kernelSlots},
                 {"h2d_bytes_per_s", device.hostToDeviceBytesPerS},
                 {"d2h_bytes_per_s", device.deviceToHostBytesPerS},
                 {"launch_s", device.launchOverheadS}});
  }
  return json;
}

void setSettings(Settings const& settings) { current() = settings; }

Settings const& settings() { return current(); }

bool cudaBuilt() { return LANES_ACCEL_CUDA != 0; }

// parse() admits cuda only where it is built, and modules ask for no device under none.
std::unique_ptr<Device> makeDevice(Settings const& settings) {
#if LANES_ACCEL_CUDA
  if (settings.backend == Backend::Cuda) return makeCudaDevice();
#endif
  return std::make_unique<EmulatedDevice>(settings.emulated);
}

}  // namespace lanes::accel
