#pragma once
// Parsing helpers for the script tests.
#include <doctest/doctest.h>

#include <string>

#include "rtkit/script/ast_dump.hpp"
#include "rtkit/script/parser.hpp"
#include "rtkit/script/script_error.hpp"

/// The tree of `text` as S-expressions.
inline std::string tree_of(std::string text) {
    return rtkit::script::dump(rtkit::script::parse("t.rts", std::move(text)).body);
}

/// The syntax error of `text` as "LINE:COLUMN: MESSAGE", or "" when it parses.
inline std::string syntax_error_of(std::string text) {
    try {
        rtkit::script::parse("t.rts", std::move(text));
    } catch (const rtkit::script::script_error& e) {
        CHECK(e.kind() == rtkit::script::error_kind::syntax);
        return std::to_string(e.where().line) + ':' + std::to_string(e.where().column) + ": " +
               e.message();
    }
    return {};
}
