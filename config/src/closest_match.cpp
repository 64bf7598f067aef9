#include "rtkit/config/closest_match.hpp"

#include <algorithm>
#include <vector>

namespace rtkit::config {

std::size_t edit_distance(std::string_view a, std::string_view b) {
    // Optimal string alignment: Levenshtein plus swapping two adjacent
    // characters as one edit, the commonest typo ("cuont" for "count").
    // Three rows of the dynamic-programming table are enough.
    std::vector<std::size_t> before(b.size() + 1), previous(b.size() + 1), row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j)
        previous[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            row[j] = std::min({previous[j] + 1, row[j - 1] + 1, previous[j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                row[j] = std::min(row[j], before[j - 2] + 1);
        }
        std::swap(before, previous);
        std::swap(previous, row);
    }
    return previous[b.size()];
}

std::optional<std::string> closest_match(std::string_view word,
                                         std::span<const std::string_view> candidates) {
    std::optional<std::string> best;
    std::size_t best_distance = 0;
    for (std::string_view candidate : candidates) {
        const std::size_t distance = edit_distance(word, candidate);
        const std::size_t allowed =
            std::max<std::size_t>(1, std::max(word.size(), candidate.size()) / 3);
        if (distance == 0 || distance > allowed) continue;
        if (!best || distance < best_distance) {
            best = std::string(candidate);
            best_distance = distance;
        }
    }
    return best;
}

std::string did_you_mean(std::string_view word, std::span<const std::string_view> candidates) {
    if (auto match = closest_match(word, candidates)) return "; did you mean '" + *match + "'?";
    return "";
}

}  // namespace rtkit::config
