#include "trace_timeline.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

namespace rtctl {
namespace {

std::string escape_xml(const std::string& text) {
    std::string out;
    for (char c : text) {
        switch (c) {
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '&':
                out += "&amp;";
                break;
            case '"':
                out += "&quot;";
                break;
            default:
                // Control bytes are not allowed in XML 1.0.
                if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n')
                    out += '?';
                else
                    out += c;
        }
    }
    return out;
}

std::string number(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f", value);
    return text;
}

/// A colour per task, far apart for neighbouring ids (golden-angle hues).
std::string task_colour(std::uint64_t task) {
    const double hue = static_cast<double>((task * 137) % 360);
    return "hsl(" + number(hue) + ",65%,55%)";
}

}  // namespace

std::string trace_timeline_svg(const trace_summary& trace) {
    constexpr double label_width = 110, plot_width = 1200, row_height = 28, box_height = 20,
                     top = 20, axis_height = 30;
    // The rows: every named thread, then any other thread a poll or wake is on.
    std::map<std::int64_t, std::string> rows = trace.threads();
    for (const auto& poll : trace.polls())
        rows.emplace(poll.thread, "thread " + std::to_string(poll.thread));
    for (const auto& wake : trace.wakes())
        for (std::int64_t thread : {wake.from_thread, wake.to_thread})
            rows.emplace(thread, "thread " + std::to_string(thread));
    std::map<std::int64_t, double> row_y;
    double y = top;
    for (const auto& [thread, name] : rows) {
        row_y[thread] = y;
        y += row_height;
    }
    const double height = y + axis_height;
    const double span = std::max(trace.last_us() - trace.first_us(), 1.0);
    auto x_of = [&](double us) {
        return label_width + (us - trace.first_us()) / span * plot_width;
    };

    std::string svg =
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
        number(label_width + plot_width + 20) + "\" height=\"" + number(height) +
        "\" font-family=\"sans-serif\" font-size=\"12\">\n"
        "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" "
        "markerWidth=\"6\" markerHeight=\"6\" orient=\"auto\"><path d=\"M0,0 L10,5 "
        "L0,10 z\" fill=\"#333\"/></marker></defs>\n"
        "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    for (const auto& [thread, name] : rows) {
        const double row = row_y[thread];
        svg += "<text x=\"4\" y=\"" + number(row + box_height / 2 + 4) + "\">" + escape_xml(name) +
               "</text>\n<line x1=\"" + number(label_width) + "\" y1=\"" +
               number(row + box_height) + "\" x2=\"" + number(label_width + plot_width) +
               "\" y2=\"" + number(row + box_height) + "\" stroke=\"#ddd\"/>\n";
    }
    // Polls that follow each other on a row within half a pixel are one box
    // (its tooltip counts them; grey when they are of several tasks): a trace
    // of millions of short polls stays a picture a browser can open.
    struct box {
        double start_x = 0, end_x = 0, total_us = 0;
        std::uint64_t task = 0, polls = 0;
        bool mixed = false;  // of more than one task
    };
    std::map<std::int64_t, box> open_boxes;  // by row
    auto draw = [&](std::int64_t thread, const box& b) {
        const std::string polls = std::to_string(b.polls) +
                                  (b.polls == 1 ? " poll, " : " polls, ") + number(b.total_us) +
                                  " us: ";
        svg += "<rect x=\"" + number(b.start_x) + "\" y=\"" + number(row_y[thread]) +
               "\" width=\"" + number(std::max(b.end_x - b.start_x, 0.5)) + "\" height=\"" +
               number(box_height) + "\" fill=\"" + (b.mixed ? "#999" : task_colour(b.task)) +
               "\"><title>" +
               escape_xml(polls + (b.mixed ? "several tasks" : trace.describe(b.task))) +
               "</title></rect>\n";
    };
    for (const auto& poll : trace.polls()) {
        const double x = x_of(poll.start_us);
        const double end = x_of(poll.start_us + poll.duration_us);
        const auto open = open_boxes.find(poll.thread);
        if (open != open_boxes.end() && x >= open->second.start_x &&
            x <= open->second.end_x + 0.5) {
            box& b = open->second;
            b.end_x = std::max(b.end_x, end);
            b.total_us += poll.duration_us;
            ++b.polls;
            b.mixed = b.mixed || b.task != poll.task;
            continue;
        }
        if (open != open_boxes.end()) draw(poll.thread, open->second);
        open_boxes[poll.thread] = {x, end, poll.duration_us, poll.task, 1, false};
    }
    for (const auto& [thread, b] : open_boxes)
        draw(thread, b);
    for (const auto& wake : trace.wakes()) {
        svg += "<line x1=\"" + number(x_of(wake.from_us)) + "\" y1=\"" +
               number(row_y[wake.from_thread] + box_height / 2) + "\" x2=\"" +
               number(x_of(wake.to_us)) + "\" y2=\"" +
               number(row_y[wake.to_thread] + box_height / 2) +
               "\" stroke=\"#333\" stroke-width=\"1\" marker-end=\"url(#arrow)\"/>\n";
    }
    // The time axis: the start and the end of the trace.
    const double axis = y + 16;
    svg += "<text x=\"" + number(label_width) + "\" y=\"" + number(axis) + "\">0</text>\n";
    svg += "<text x=\"" + number(label_width + plot_width) + "\" y=\"" + number(axis) +
           "\" text-anchor=\"end\">" +
           (span >= 1000 ? number(span / 1000) + " ms" : number(span) + " us") + "</text>\n";
    return svg + "</svg>\n";
}

}  // namespace rtctl
