#pragma once
// Force-included (-include) before toml++ in the fuzz preset: its internal
// assertions off, as in the library Debian ships (see toml_header_only.cmake).
#define TOML_ASSERT(expr) static_cast<void>(0)
