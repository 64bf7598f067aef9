#pragma once
// overloaded{lambdas...}: one visitor from several lambdas, for std::visit.

namespace rtkit::script {

template <class... F>
struct overloaded : F... {
    using F::operator()...;
};
template <class... F>
overloaded(F...) -> overloaded<F...>;

}  // namespace rtkit::script
