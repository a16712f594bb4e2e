#!/bin/bash
# SPDX-License-Identifier: MIT
# The bash completion of mintid and mintidd as built, sourced after
# bash-completion as a shell loads them, asked for a few completions.
#
#   tests/test_completion.sh COMPLETION_DIR
set -u
dir=$1
bash_completion=/usr/share/bash-completion/bash_completion
if [ ! -f "$bash_completion" ]; then
    echo "FAIL: $bash_completion is missing (the bash-completion package; make deps installs it)"
    exit 1
fi
# shellcheck disable=SC1090
. "$bash_completion"
. "$dir/mintid" && . "$dir/mintidd" || { echo "FAIL: sourcing $dir/mintid and $dir/mintidd"; exit 1; }
# The function `complete` registered for each program.
declare -A function
for program in mintid mintidd; do
    spec=$(complete -p "$program") || { echo "FAIL: no completion registered for $program"; exit 1; }
    [[ $spec =~ -F\ ([^ ]+) ]] && function[$program]=${BASH_REMATCH[1]}
done
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# expect "WORD WORD... TAB" "COMPLETION..." : the completions offered, sorted,
# after the words typed, the last one being the word completed.
expect() {
    local line=$1 want=$2 program got
    read -ra COMP_WORDS <<<"$line"
    [[ $line == *" " ]] && COMP_WORDS+=("")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMP_LINE=$line
    COMP_POINT=${#line}
    COMPREPLY=()
    program=${COMP_WORDS[0]}
    "${function[$program]}" "$program" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
    # Sorted here rather than by sort(1): every process started counts on a busy machine.
    local sorted=() word i
    for word in "${COMPREPLY[@]}"; do
        [ -n "$word" ] || continue
        for ((i = ${#sorted[@]}; i > 0; i--)); do
            [[ ${sorted[i - 1]} > $word ]] || break
            sorted[i]=${sorted[i - 1]}
        done
        sorted[i]=$word
    done
    got="${sorted[*]}"
    if [ "$got" != "$want" ]; then
        echo "FAIL: '$line<TAB>' offers '$got', expected '$want'"
        fail=1
    fi
}

expect "mintid g" "gen"
expect "mintid gen nano" "nanoflake"
expect "mintid gen ulid" "ulid ulid-flake ulid-flake-scalable"
expect "mintid gen nanoflake --as " "hex int padded text"
expect "mintid gen --node 3 typeid --as " "hex text uuid"
expect "mintid gen nanoflake --overflow " "fail wait"
expect "mintid gen nanoflake --lo" "--local"
expect "mintid gen nanoflake " ""
expect "mintid range sc" "scru128 scru160"
expect "mintid inspect --format sc" "scru128 scru160"
expect "mintid convert --format caloriosa --to " "core hex int text"
expect "mintid convert --t" "--to"
expect "mintid inspect -- " ""

expect "mintidd --node-l" "--node-lease"
expect "mintidd --node-lease " ""
expect "mintidd --settings-reference " "conf man names"
expect "mintidd i" "init"
expect "mintidd init --fl" "--floor"
mkdir "$tmp/certs" && touch "$tmp/server.crt" "$tmp/mintidd.conf"
expect "mintidd --config $tmp/" "$tmp/certs $tmp/mintidd.conf $tmp/server.crt"
expect "mintidd --tls-cert $tmp/s" "$tmp/server.crt"
expect "mintidd --state-dir $tmp/" "$tmp/certs"

[ $fail = 0 ] && echo "bash completion: mintid and mintidd complete as expected"
exit $fail
