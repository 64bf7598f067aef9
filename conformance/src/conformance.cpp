// Running suites and reporting: the part shared by every plugin kind.
#include <exception>
#include <sstream>
#include <string>
#include <utility>

#include "rtkit/conformance/conformance.hpp"
#include "suite_support.hpp"

namespace rtkit::conformance {

std::string_view verdict_name(verdict v) noexcept {
    switch (v) {
        case verdict::passed:
            return "passed";
        case verdict::failed:
            return "failed";
        case verdict::skipped:
            return "skipped";
    }
    return "unknown";
}

std::size_t report::count(verdict v) const noexcept {
    std::size_t n = 0;
    for (const case_result& c : cases)
        n += c.outcome == v;
    return n;
}

bool report::passed() const noexcept {
    return load_error.empty() && count(verdict::failed) == 0;
}

namespace detail {

namespace {
/// note()'s text for the case running on this thread.
thread_local std::string case_note;
}  // namespace

void note(std::string text) {
    case_note = std::move(text);
}

template <class Interface>
report run_cases(const std::filesystem::path& file, const option_table& options,
                 const std::vector<test_case<Interface>>& cases) {
    report r;
    r.file = file;
    const plugin_loader loader;
    try {
        const plugin_info info = loader.inspect(file);
        r.kind = kind_name(info.kind);
        r.plugin_name = info.name;
        // Created once up front so that a wrong kind or bad options is one clear
        // load error instead of the same failure in every case.
        loader.create<Interface>(file, options);
    } catch (const std::exception& e) {
        r.load_error = e.what();
        return r;
    }
    const factory<Interface> make = [&] { return loader.create<Interface>(file, options); };
    for (const test_case<Interface>& c : cases) {
        case_result result{std::string(r.kind) + "." + c.name, verdict::passed, {}, {}};
        const auto start = std::chrono::steady_clock::now();
        case_note.clear();
        try {
            c.run(make);
            result.message = std::move(case_note);
        } catch (const case_skipped& e) {
            result.outcome = verdict::skipped;
            result.message = e.what();
        } catch (const case_failure& e) {
            result.outcome = verdict::failed;
            result.message = e.what();
        } catch (const std::exception& e) {
            result.outcome = verdict::failed;
            result.message = std::string("unexpected exception: ") + e.what();
        } catch (...) {
            result.outcome = verdict::failed;
            result.message = "unexpected non-standard exception";
        }
        result.elapsed = std::chrono::duration_cast<std::chrono::microseconds>(
            std::chrono::steady_clock::now() - start);
        r.cases.push_back(std::move(result));
    }
    return r;
}

template report run_cases<reactor>(const std::filesystem::path&, const option_table&,
                                   const std::vector<test_case<reactor>>&);
template report run_cases<timer_driver>(const std::filesystem::path&, const option_table&,
                                        const std::vector<test_case<timer_driver>>&);
template report run_cases<lane_policy>(const std::filesystem::path&, const option_table&,
                                       const std::vector<test_case<lane_policy>>&);

}  // namespace detail

report run_conformance(const std::filesystem::path& file, const option_table& options) {
    plugin_info info;
    try {
        info = plugin_loader().inspect(file);
    } catch (const std::exception& e) {
        report r;
        r.file = file;
        r.load_error = e.what();
        return r;
    }
    switch (info.kind) {
        case RTKIT_PLUGIN_REACTOR:
            return run_reactor_conformance(file, options);
        case RTKIT_PLUGIN_TIMER:
            return run_timer_conformance(file, options);
        case RTKIT_PLUGIN_LANES:
            return run_lanes_conformance(file, options);
    }
    report r;
    r.file = file;
    r.load_error = "no conformance suite for this plugin kind";
    return r;
}

std::vector<case_info> cases_of(std::string_view kind) {
    std::vector<case_info> found;
    auto add = [&](const auto& cases) {
        for (const auto& c : cases)
            found.push_back({std::string(kind) + "." + c.name, c.checks});
    };
    if (kind == "reactor") add(detail::reactor_cases());
    if (kind == "timer") add(detail::timer_cases());
    if (kind == "lanes") add(detail::lanes_cases());
    return found;
}

std::vector<std::string> case_names(std::string_view kind) {
    std::vector<std::string> names;
    for (case_info& c : cases_of(kind))
        names.push_back(std::move(c.name));
    return names;
}

std::string format_report(const report& r) {
    std::ostringstream out;
    out << "conformance of " << (r.kind.empty() ? "plugin" : r.kind) << " '" << r.plugin_name
        << "' (" << r.file.string() << ")\n";
    if (!r.load_error.empty()) {
        out << "  could not load: " << r.load_error << "\n";
        return out.str();
    }
    for (const case_result& c : r.cases) {
        out << "  " << verdict_name(c.outcome) << "  " << c.name << " (" << c.elapsed.count() / 1000
            << " ms)";
        if (!c.message.empty()) out << ": " << c.message;
        out << "\n";
    }
    out << "  " << r.count(verdict::passed) << " passed, " << r.count(verdict::failed)
        << " failed, " << r.count(verdict::skipped) << " skipped\n";
    return out.str();
}

}  // namespace rtkit::conformance
