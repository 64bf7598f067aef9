// libFuzzer harness: the plugin loader's descriptor checks on descriptors
// built from fuzz bytes, without loading a library or running plugin code.
//
// The bytes give the version fields, the kind, which pointers are null, the
// option declarations and every string (NUL-terminated copies of pieces of the
// input). The descriptor is placed in a heap block of exactly the size it
// claims (at least its three version fields, at most the full structure), so
// AddressSanitizer reports any read of a field that the size check has not
// proved to exist. create and destroy point at functions that abort: the
// checks must never call them.
//
// Rules checked: the only exception is plugin_error, naming the file; an
// accepted descriptor has the host's ABI major, a minor no newer, a size that
// covers the structure, the host's toolchain, a known kind, a name, both
// functions and well-formed options, and plugin_info copies them faithfully.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "fuzz_support.hpp"
#include "plugin_descriptor_check.hpp"
#include "rtkit/plugin_loader.hpp"

using rtkit_fuzz::expect;
using rtkit_fuzz::fuzz_failure;

namespace {

constexpr std::size_t max_options = 16;
constexpr std::size_t version_fields_size = 3 * sizeof(std::uint32_t);

rtkit::plugin_object* create_must_not_run(const rtkit_plugin_args*) {
    fuzz_failure("the descriptor checks never call create");
}
void destroy_must_not_run(rtkit::plugin_object*) {
    fuzz_failure("the descriptor checks never call destroy");
}

/// The strings a descriptor points to; a deque, so that pointers stay valid.
class string_pool {
  public:
    explicit string_pool(FuzzedDataProvider& bytes) : bytes_(bytes) {}
    /// A NUL-terminated piece of the input, or nullptr when the input says so.
    const char* next(bool null) {
        std::string text = bytes_.ConsumeRandomLengthString(64);
        if (null) return nullptr;
        return strings_.emplace_back(std::move(text)).c_str();
    }

  private:
    FuzzedDataProvider& bytes_;
    std::deque<std::string> strings_;
};

/// A value that is the host's with good odds, anything otherwise, so that the
/// fuzzer reaches the later checks quickly.
template <class T>
T mostly(FuzzedDataProvider& bytes, T usual) {
    return bytes.ConsumeBool() ? usual : bytes.ConsumeIntegral<T>();
}

bool same_text(const char* declared, const std::string& copied) {
    return copied == (declared ? declared : "");
}

void check_accepted(const rtkit_plugin_descriptor& d, const rtkit::plugin_info& info) {
    expect(d.abi_major == RTKIT_PLUGIN_ABI_MAJOR, "an accepted descriptor has the host's major");
    expect(d.abi_minor <= RTKIT_PLUGIN_ABI_MINOR, "an accepted descriptor's minor is not newer");
    expect(d.descriptor_size >= sizeof(rtkit_plugin_descriptor),
           "an accepted descriptor covers the structure of its minor");
    expect(d.toolchain && std::strcmp(d.toolchain, RTKIT_TOOLCHAIN_TAG) == 0,
           "an accepted descriptor has the host's toolchain");
    expect(d.kind >= RTKIT_PLUGIN_REACTOR && d.kind <= RTKIT_PLUGIN_LANES,
           "an accepted descriptor has a known kind");
    expect(d.name && *d.name && info.name == d.name, "an accepted descriptor has its name");
    expect(d.create && d.destroy, "an accepted descriptor has create and destroy");
    expect(info.kind == d.kind && same_text(d.version, info.version) &&
               same_text(d.description, info.description),
           "plugin_info copies the descriptor");
    expect(info.options.size() == d.option_count, "plugin_info holds every declared option");
    for (std::size_t i = 0; i < info.options.size(); ++i) {
        const rtkit_option_decl& o = d.options[i];
        const rtkit::plugin_option_info& copy = info.options[i];
        expect(o.name && *o.name && copy.name == o.name, "an accepted option has its name");
        expect(copy.type == o.type && copy.min_value == o.min_value &&
                   copy.max_value == o.max_value &&
                   same_text(o.default_value, copy.default_value) &&
                   same_text(o.allowed, copy.allowed) && same_text(o.help, copy.help),
               "plugin_option_info copies the declaration");
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    FuzzedDataProvider bytes(data, size);
    string_pool strings(bytes);

    rtkit_plugin_descriptor d{};
    d.abi_major = mostly<std::uint32_t>(bytes, RTKIT_PLUGIN_ABI_MAJOR);
    d.abi_minor = mostly<std::uint32_t>(bytes, RTKIT_PLUGIN_ABI_MINOR);
    d.descriptor_size = mostly<std::uint32_t>(bytes, sizeof(rtkit_plugin_descriptor));
    d.kind = mostly<std::uint32_t>(bytes, RTKIT_PLUGIN_REACTOR);
    d.toolchain = bytes.ConsumeBool() ? RTKIT_TOOLCHAIN_TAG : strings.next(bytes.ConsumeBool());
    d.name = strings.next(bytes.ConsumeBool());
    d.version = strings.next(bytes.ConsumeBool());
    d.description = strings.next(bytes.ConsumeBool());
    d.create = bytes.ConsumeBool() ? nullptr : &create_must_not_run;
    d.destroy = bytes.ConsumeBool() ? nullptr : &destroy_must_not_run;

    // Exactly option_count declarations (the loader must trust the count: it
    // cannot know the array's length), or none behind a null pointer.
    d.option_count = bytes.ConsumeIntegralInRange<std::uint32_t>(0, max_options);
    std::vector<rtkit_option_decl> options(d.option_count);
    for (rtkit_option_decl& o : options) {
        o.name = strings.next(bytes.ConsumeBool());
        o.type = bytes.ConsumeBool() ? bytes.ConsumeIntegralInRange<std::uint32_t>(1, 3)
                                     : bytes.ConsumeIntegral<std::uint32_t>();
        o.default_value = strings.next(bytes.ConsumeBool());
        o.min_value = bytes.ConsumeIntegral<std::int64_t>();
        o.max_value = bytes.ConsumeIntegral<std::int64_t>();
        o.allowed = strings.next(bytes.ConsumeBool());
        o.help = strings.next(bytes.ConsumeBool());
    }
    d.options = bytes.ConsumeBool() ? nullptr : options.data();

    // The descriptor as a plugin of that size would export it.
    const std::size_t placed = std::max<std::size_t>(
        version_fields_size, std::min<std::size_t>(d.descriptor_size, sizeof d));
    const auto block = std::make_unique<unsigned char[]>(placed);
    std::memcpy(block.get(), &d, placed);
    const auto& exported = *reinterpret_cast<const rtkit_plugin_descriptor*>(block.get());

    try {
        const rtkit::plugin_info info = rtkit::detail::check_descriptor(exported, "fuzz.so");
        check_accepted(d, info);
    } catch (const rtkit::plugin_error& e) {
        const std::string message = e.what();
        expect(message.find("'fuzz.so'") != std::string::npos, "a refusal names the file", message);
    }
    return 0;
}
