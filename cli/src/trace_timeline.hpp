#pragma once
// rtctl inspect TRACE.json --svg FILE: the trace as a picture.
#include <string>

#include "trace_summary.hpp"

namespace rtctl {

/// An SVG document: one row per thread (workers first), each poll a box
/// coloured by its task (its name and length in a tooltip), each wake an
/// arrow from where it was made to the poll it caused, a time axis below.
std::string trace_timeline_svg(const trace_summary& trace);

}  // namespace rtctl
