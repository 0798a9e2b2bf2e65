#include "plugins/root/RootTesting.h"

#include <stdlib.h>

#include <algorithm>
#include <stdexcept>

namespace lanes::rootio::test {

std::string dataFile(std::string const& name) { return std::string(LANES_DATA_DIR) + "/" + name; }

ScratchDirectory::ScratchDirectory() {
  char name[] = "/tmp/lanes-root-test-XXXXXX";
  if (!mkdtemp(name)) throw std::runtime_error("cannot create a scratch directory");
  root_ = name;
}

ScratchDirectory::~ScratchDirectory() {
  std::error_code ignored;
  std::filesystem::remove_all(root_, ignored);
}

std::vector<std::string> ScratchDirectory::files() const {
  std::vector<std::string> names;
  for (auto const& entry : std::filesystem::directory_iterator(root_)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::size_t indexOf(Source const& source, std::string const& label) {
  auto const& products = source.products();
  auto it = std::find_if(products.begin(), products.end(), [&](auto const& p) { return p.label == label; });
  if (it == products.end()) throw std::runtime_error("no product " + label);
  return static_cast<std::size_t>(it - products.begin());
}

JobConfig rootJob(std::string const& source, std::vector<std::string> const& outputs, unsigned threads, unsigned lanes) {
  JobConfig config;
  config.source = PluginSpec::parse(source);
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    auto spec = PluginSpec::parse(outputs[i]);
    config.outputs.push_back({spec.name + std::to_string(i), spec});
  }
  config.threads = threads;
  config.lanes = lanes;
  return config;
}

}  // namespace lanes::rootio::test
