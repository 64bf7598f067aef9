// libFuzzer harness: the script front end (lexer and parser) on any bytes.
//
// Rules checked besides "no crash, no leak, no undefined behaviour": the only
// exception is a syntax script_error; its position lies inside the text; the
// parser fails exactly where the lexer does when the lexer fails; the
// diagnostic quotes a bounded window of the line, escaped; an accepted program
// can be dumped.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "fuzz_support.hpp"
#include "rtkit/script/ast_dump.hpp"
#include "rtkit/script/lexer.hpp"
#include "rtkit/script/parser.hpp"
#include "rtkit/script/script_error.hpp"
#include "text_positions.hpp"

using rtkit_fuzz::expect;
namespace script = rtkit::script;

namespace {

void check_error(const script::script_error& e, const script::source_file& file) {
    expect(e.kind() == script::error_kind::syntax, "the front end reports syntax errors only",
           e.what());
    const script::source_pos& at = e.where();
    expect(at.file == &file, "an error points into the file that was parsed", e.what());
    expect(at.line >= 1 && at.line <= rtkit_fuzz::line_count(file.text), "an error's line exists",
           e.what());
    expect(rtkit_fuzz::inside(file.text, at.line, at.column),
           "an error's column lies on its line (or just after it)", e.what());
    expect(!e.message().empty(), "an error says what is wrong");
    const std::string diagnostic = script::format_diagnostic(e);
    expect(diagnostic.rfind(e.what(), 0) == 0 && diagnostic.back() == '\n',
           "the diagnostic starts with file:line:column and ends with a newline", diagnostic);
    const std::string_view quoted = std::string_view(diagnostic).substr(std::strlen(e.what()));
    expect(quoted.size() <= 2 * (2 + 3 + 4 * 80 + 3 + 1),
           "the quoted line is a bounded window around the column", diagnostic);
    expect(std::all_of(quoted.begin(), quoted.end(),
                       [](char c) { return c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7f); }),
           "the quoted line shows no raw control or non-ASCII byte", diagnostic);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    auto file = std::make_shared<const script::source_file>(
        script::source_file{"fuzz.rts", std::string(reinterpret_cast<const char*>(data), size)});

    std::string lexer_error;
    try {
        script::tokenize(*file);
    } catch (const script::script_error& e) {
        check_error(e, *file);
        lexer_error = e.what();
    }

    try {
        const script::program program = script::parse(file);
        expect(lexer_error.empty(), "the parser accepts nothing the lexer refuses", lexer_error);
        const std::string tree = script::dump(program.body);
        expect(program.body.statements.empty() || !tree.empty(),
               "an accepted program with statements dumps to some text");
    } catch (const script::script_error& e) {
        check_error(e, *file);
        expect(lexer_error.empty() || lexer_error == e.what(),
               "when the lexer fails, the parser reports the lexer's error", e.what());
    }
    return 0;
}
