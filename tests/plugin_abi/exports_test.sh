#!/usr/bin/env bash
# Every plugin file exports its descriptor alias and nothing else
# (kernel/README.md, "What a plugin exports"): anything more can be bound by
# another library in the process, or bind to it.
#
# Usage: exports_test.sh NM PLUGIN.so...
set -euo pipefail

if [ $# -lt 2 ]; then
    echo "usage: $0 NM PLUGIN.so..." >&2
    exit 2
fi
nm=$1
shift
alias='rtkit_plugin_descriptor_v[0-9][0-9]*'
status=0
for plugin in "$@"; do
    symbols=$("$nm" -D --defined-only "$plugin" | awk '{ print $NF }')
    if ! grep -qx "$alias" <<<"$symbols"; then
        echo "$plugin: does not export a descriptor alias (rtkit_plugin_descriptor_vMAJOR)"
        status=1
    fi
    extra=$(grep -vx "$alias" <<<"$symbols" || true)
    if [ -n "$extra" ]; then
        echo "$plugin exports $(wc -l <<<"$extra") symbols besides its descriptor:"
        sed 's/^/  /' <<<"$extra"
        status=1
    fi
done
[ $status -ne 0 ] || echo "ok: $# plugin files export their descriptor alone"
exit $status
