#include "rtkit/script/object.hpp"

#include "rtkit/script/script_error.hpp"

namespace rtkit::script {

value object::field(std::string_view name, source_pos where) const {
    throw script_error(error_kind::runtime, where,
                       std::string(type_name()) + " has no field '" + std::string(name) + "'");
}

std::string_view status_name(task_outcome::status s) noexcept {
    switch (s) {
        case task_outcome::status::ok:
            return "ok";
        case task_outcome::status::error:
            return "error";
        case task_outcome::status::cancelled:
            return "cancelled";
        case task_outcome::status::panicked:
            return "panicked";
    }
    return "?";
}

std::shared_ptr<task_outcome> task_outcome::ok(value result) {
    return std::make_shared<task_outcome>(std::move(result));
}

std::shared_ptr<task_outcome> task_outcome::failed(status kind, std::string message,
                                                   std::exception_ptr failure) {
    return std::make_shared<task_outcome>(kind, std::move(message), std::move(failure));
}

std::shared_ptr<task_outcome> task_outcome::cancelled(std::string reason) {
    return std::make_shared<task_outcome>(status::cancelled, std::move(reason), nullptr);
}

std::string task_outcome::display() const {
    const std::string inner = status_ == status::ok ? to_display(result_) : message_;
    return std::string(status_name(status_)) + "(" + inner + ")";
}

std::vector<std::string_view> task_outcome::field_names() const {
    return {"status", "ok", "value", "message"};
}

value task_outcome::field(std::string_view name, source_pos where) const {
    if (name == "status") return std::string(status_name(status_));
    if (name == "ok") return status_ == status::ok;
    if (name == "message") return message_;
    if (status_ != status::ok)
        throw script_error(error_kind::runtime, where,
                           "the task's outcome is " + display() +
                               ": only an ok outcome has a value (test .ok first)");
    return result_;
}

}  // namespace rtkit::script
