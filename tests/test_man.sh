#!/bin/bash
# SPDX-License-Identifier: MIT
# The man pages as built: each renders with every groff warning enabled
# and gives none, mintidd.conf(5) has an entry for every setting of
# mintidd's table and no other, and mintid(1) describes every command and
# option `mintid --help` shows.
#
#   tests/test_man.sh MINTID MINTIDD MAN_DIR
set -u
mintid=$1 mintidd=$2 man_dir=$3
fail=0
problem() {
    echo "FAIL: $*"
    fail=1
}

pages=(mintid.1 mintidd.8 mintidd.conf.5)
for page in "${pages[@]}"; do
    [ -s "$man_dir/$page" ] || { problem "$man_dir/$page is missing or empty"; continue; }
    out=$(groff -ww -z -man "$man_dir/$page" 2>&1)
    [ -z "$out" ] || problem "groff -ww -z -man $page:"$'\n'"$out"
    # As man(1) renders it, warnings shown (man-db's --warnings, -ww to groff).
    out=$(MANROFFOPT=-ww MANPAGER=cat man --warnings -l "$man_dir/$page" 2>&1 >/dev/null)
    [ -z "$out" ] || problem "man --warnings -l $page:"$'\n'"$out"
done

# The tags of the .TP entries of a section: the first word of the line after
# each .TP, its macro, quotes and font changes taken off, "\-" read as "-".
tags() { # FILE SECTION
    awk -v section="$2" '
        /^\.SH / { name = substr($0, 5); gsub(/"/, "", name); inside = (name == section); next }
        inside && /^\.TP/ { tag = 1; next }
        inside && tag { tag = 0; sub(/^\.[A-Z]+ /, ""); gsub(/"/, ""); gsub(/\\f[BIRP]/, "");
                        gsub(/\\-/, "-"); split($0, w, " "); print w[1] }' "$1"
}

# mintidd.conf(5): one entry per setting, as `mintidd --settings-reference names` lists them.
names=$("$mintidd" --settings-reference names) || problem "mintidd --settings-reference names failed"
[ -n "$names" ] || problem "mintidd --settings-reference names printed nothing"
entries=$(tags "$man_dir/mintidd.conf.5" SETTINGS)
for name in $names; do
    grep -qxF -- "$name" <<<"$entries" || problem "mintidd.conf.5 has no entry for the setting $name"
done
for entry in $entries; do
    grep -qxF -- "$entry" <<<"$names" || problem "mintidd.conf.5 has an entry for $entry, which is not a setting"
done

# mintid(1): every command of the help's "commands:" block is an entry of
# COMMANDS, and every option the help shows appears in the page.
help=$("$mintid" --help) || problem "mintid --help failed"
commands=$(awk '/^commands:/ { inside = 1; next } inside && /^$/ { inside = 0 }
                inside && /^  [a-z]/ { print $1 }' <<<"$help")
[ -n "$commands" ] || problem "mintid --help lists no commands"
entries=$(tags "$man_dir/mintid.1" COMMANDS)
for command in $commands; do
    grep -qxF -- "$command" <<<"$entries" || problem "mintid.1 has no entry under COMMANDS for the command $command"
done
options=$(grep -oE -- '(^|[^a-zA-Z0-9-])--?[a-z][a-z-]*' <<<"$help" | sed 's/^[^-]*//' | sort -u)
page=$(sed 's/\\-/-/g' "$man_dir/mintid.1")
for option in $options; do
    grep -qE -- "(^|[^a-z-])$option([^a-z-]|\$)" <<<"$page" || problem "mintid.1 does not mention the option $option"
done

[ $fail = 0 ] && echo "man pages: ${#pages[@]} pages render without warnings; every setting, command and option described"
exit $fail
