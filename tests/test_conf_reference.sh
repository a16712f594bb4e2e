#!/bin/bash
# SPDX-License-Identifier: MIT
# The config file mintidd writes for packaging (`mintidd --settings-reference
# conf`, every setting commented out with its default) is one mintidd
# accepts: with every `#name = value` line uncommented as it is written,
# it lists each setting once and loads as exactly the defaults.
#
#   tests/test_conf_reference.sh MINTIDD CONFIG_DEFAULTS
set -u
mintidd=$1 config_defaults=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0

"$mintidd" --settings-reference conf >"$dir/commented.conf" || { echo "FAIL: mintidd --settings-reference conf"; exit 1; }
"$mintidd" --settings-reference names >"$dir/names" || { echo "FAIL: mintidd --settings-reference names"; exit 1; }
sed -E 's/^#([a-z][a-z0-9-]* =)/\1/' "$dir/commented.conf" >"$dir/mintidd.conf"

# Nothing was set before: the file as packaged is all comments.
if grep -qvE '^(#|$)' "$dir/commented.conf"; then
    echo "FAIL: the packaged file sets something:"
    grep -vE '^(#|$)' "$dir/commented.conf"
    fail=1
fi
# Uncommented, its settings are the table's, each once, in its order.
sed -nE 's/^([a-z][a-z0-9-]*) =.*/\1/p' "$dir/mintidd.conf" >"$dir/set"
if ! diff -u "$dir/names" "$dir/set"; then
    echo "FAIL: the settings of the uncommented file are not those of --settings-reference names (above)"
    fail=1
fi
# Loaded with no MINTID_* variable about, as mintidd --config loads it.
env -i PATH="$PATH" "$config_defaults" "$dir/mintidd.conf"
case $? in
0) ;;
1) echo "FAIL: the uncommented file loads as settings other than the defaults"; fail=1 ;;
*) echo "FAIL: mintidd's config loader refused the uncommented file"; fail=1 ;;
esac

[ $fail = 0 ] && echo "the packaged config, uncommented, lists $(wc -l <"$dir/names") settings and loads as the defaults"
exit $fail
