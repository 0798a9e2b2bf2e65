#include "AccelOptions.h"

#include <memory>
#include <string>

#include "accel/Settings.h"

namespace lanes::cli {

void addAccelOptions(CLI::App& run) {
  struct Choice {
    std::string backend = "none";
    std::string strategy = "external-worker";
  };
  auto choice = std::make_shared<Choice>();
  run.add_option("--accel", choice->backend,
                 "Accelerator backend SPEC: none (CPU implementations), emulated:slots=4,h2d=BYTES/S,d2h=BYTES/S,"
                 "launch=SECONDS,queues=N, or cuda:queues=N (default: none)");
  run.add_option("--accel-strategy", choice->strategy,
                 "How accelerator modules complete: sync-single, sync-multi, external-worker, external-worker-d2h, "
                 "waiting-pool[:threads=N] (default: external-worker)");
  // Runs before the subcommand's own callback, which builds the job.
  run.parse_complete_callback([choice] { accel::setSettings(accel::Settings::parse(choice->backend, choice->strategy)); });
}

nlohmann::json accelReport() {
  auto const& chosen = accel::settings();
  return chosen.backend == accel::Backend::None ? nlohmann::json() : accel::toJson(chosen);
}

}  // namespace lanes::cli
