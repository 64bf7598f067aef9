// An ordinary shared library, no plugin, in a plugin directory: the loader
// must never open it. If it is opened, its start-up code leaves a mark.
#include <cstdlib>

namespace {

[[gnu::constructor]] void mark_opened() {
    setenv("RTKIT_TEST_BYSTANDER_OPENED", "1", 1);
}

}  // namespace
