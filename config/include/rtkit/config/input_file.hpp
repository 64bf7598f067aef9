#pragma once
// Reading an input file (a configuration, a script) whole, with bounds: only a
// regular file, or standard input for "-", and at most max_input_bytes.
#include <cstddef>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace rtkit::config {

/// The most an input file may hold: 16 MiB. Anything larger is refused rather
/// than read until memory runs out.
inline constexpr std::size_t max_input_bytes = std::size_t{16} << 20;

/// An input that cannot be read. what() is the reason alone ("it is a
/// directory, not a regular file; ..."), for the caller to put after the
/// file's name.
class input_error : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

/// The name an input is reported under: the path, or "<stdin>" for "-".
std::string input_name(const std::filesystem::path& path);

/// The whole text of `path`: a regular file, or standard input when `path` is
/// "-". Throws input_error when it cannot be opened, is not a regular file (a
/// directory, a FIFO, a device: checked on the opened descriptor, so nothing
/// blocks), holds more than max_input_bytes, or a read fails.
std::string read_input_file(const std::filesystem::path& path);

}  // namespace rtkit::config
