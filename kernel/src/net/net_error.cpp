#include "net_error.hpp"

namespace rtkit::net::detail {

std::string describe_operation(io_opcode op, const registered_fd& fd) {
    const std::string where = fd.describe();
    switch (op) {
        case io_opcode::accept:
            return "accept on " + where;
        case io_opcode::connect:
            return "connect to " + where;
        case io_opcode::recv:
        case io_opcode::read:
            return "read from " + where;
        case io_opcode::send:
        case io_opcode::write:
            return "write to " + where;
    }
    return "I/O on " + where;
}

void throw_net_error(int error, io_opcode op, const registered_fd& fd, const std::string& suffix) {
    throw std::system_error(error, std::generic_category(), describe_operation(op, fd) + suffix);
}

void throw_errno(int error, const std::string& what) {
    throw std::system_error(error, std::generic_category(), what);
}

}  // namespace rtkit::net::detail
