#pragma once
// rtkit::config::config_error: a configuration that cannot be used, with every
// problem found and where it is (file:line:column), so a user fixes them in one go.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace rtkit::config {

/// One problem in one configuration source.
struct config_diagnostic {
    std::string source;      ///< file name, or "--set" for a command-line override
    std::uint32_t line = 0;  ///< 1-based; 0 when the source as a whole is at fault
    std::uint32_t column = 0;
    std::string message;  ///< what is wrong, what was expected, and a suggestion

    /// "SOURCE:LINE:COLUMN: error: MESSAGE"
    std::string format() const;
};

/// Thrown by the loaders. what() is the diagnostics formatted one per line,
/// in the order they appear in the source.
class config_error : public std::runtime_error {
  public:
    explicit config_error(std::vector<config_diagnostic> diagnostics);

    const std::vector<config_diagnostic>& diagnostics() const noexcept { return diagnostics_; }

  private:
    std::vector<config_diagnostic> diagnostics_;
};

}  // namespace rtkit::config
