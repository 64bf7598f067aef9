// A small but valid third-party lane policy, built outside the built-in plugin
// directory, with one option of each type so option handling can be checked.
#include <string>

#include "rtkit/lane_policy.hpp"
#include "rtkit/plugin.hpp"
#include "test_fifo_options.hpp"

#ifndef TEST_PLUGIN_NAME
#define TEST_PLUGIN_NAME "test_fifo"
#endif

namespace {

/// One FIFO for both lanes; cancel-lane tasks are put at its front.
class test_fifo final : public rtkit::lane_policy {
  public:
    explicit test_fifo(const rtkit::plugin_options& options) {
        // Options are read here, in the constructor: the strings live only
        // until the factory returns.
        received_.mode = options.get_string("mode");
        received_.verbose = options.get_bool("verbose");
        received_.batch = options.get_int("batch");
    }
    void push(rtkit::schedulable* task, rtkit::lane which) noexcept override {
        task->lane_next = nullptr;
        if (which == rtkit::lane::cancel && head_) {
            task->lane_next = head_;  // cancel tasks go first
            head_ = task;
        } else {
            (tail_ ? tail_->lane_next : head_) = task;
            tail_ = task;
        }
        ++size_;
    }
    rtkit::schedulable* pop() noexcept override {
        if (!head_) return nullptr;
        rtkit::schedulable* task = head_;
        head_ = task->lane_next;
        if (!head_) tail_ = nullptr;
        --size_;
        return task;
    }
    std::size_t steal(rtkit::schedulable**, std::size_t) noexcept override { return 0; }
    std::size_t size() const noexcept override { return size_; }
    void* query_interface(const char* name) noexcept override {
        return std::string_view(name) == test_fifo_options_interface ? &received_ : nullptr;
    }

  private:
    rtkit::schedulable* head_ = nullptr;
    rtkit::schedulable* tail_ = nullptr;
    std::size_t size_ = 0;
    test_fifo_options received_;
};

constexpr rtkit_option_decl test_fifo_option_decls[] = {
    {"mode", RTKIT_OPTION_STRING, "\"fifo\"", 0, 0, "fifo|lifo", "queue discipline"},
    {"verbose", RTKIT_OPTION_BOOL, "false", 0, 0, nullptr, "log every push"},
    {"batch", RTKIT_OPTION_INT, "4", 1, 64, nullptr, "tasks per steal"},
};

constexpr rtkit_plugin_descriptor test_fifo_descriptor =
    rtkit::make_plugin_descriptor<rtkit::lane_policy, test_fifo>(
        TEST_PLUGIN_NAME, "0.1.0", "a test lane policy outside the built-in directory",
        test_fifo_option_decls, 3);

}  // namespace

RTKIT_EXPORT_PLUGIN(test_fifo_descriptor)
