#include "rtkit/config/make_runtime.hpp"

#include "rtkit/config/load.hpp"

namespace rtkit::config {

runtime make_runtime(const std::filesystem::path& file, environment_layer environment) {
    config_sources sources;
    sources.file = file;
    sources.environment = environment == environment_layer::apply;
    return runtime(load(sources).config);
}

}  // namespace rtkit::config
