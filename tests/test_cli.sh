#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_cli.sh - the mintid command as a user meets it: output, messages and
# exit statuses (0 ok, 1 invalid ID, 2 usage, 3 minting or writing failed).
# Usage: test_cli.sh PATH/TO/mintid [--no-faketime]
# (--no-faketime for sanitizer builds, whose runtimes and libfaketime do not mix)
set -u
M=${1:?usage: test_cli.sh PATH/TO/mintid [--no-faketime]}
no_faketime=${2:-}
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# The host-wide generators' states: the test's own, never the host's.
export MINTID_HOST_DIR="$tmp/host"
mkdir "$MINTID_HOST_DIR"
# A host of its own, for a run whose clock is faked: its state must not meet the others'.
new_host() { MINTID_HOST_DIR=$(mktemp -d -p "$tmp"); }

# run EXPECTED_STATUS CMD...: runs CMD, keeps stdout/stderr in $out/$err.
run() {
    local want=$1; shift
    "$@" >"$tmp/out" 2>"$tmp/err"
    local got=$?
    out=$(cat "$tmp/out"); err=$(cat "$tmp/err")
    [ "$got" = "$want" ] || fail "$* -> exit $got, expected $want (stderr: $err)"
}
has_err() { grep -qF -- "$1" "$tmp/err" || fail "stderr of last command lacks '$1' (got: $err)"; }
same() { [ "$1" = "$2" ] || fail "got '$1', expected '$2'"; }

# Every format, from the table (mintid formats), so a new one is tested without a change here.
formats=$("$M" formats | grep -E '^[a-z]')
[ "$(echo $formats | wc -w)" -ge 13 ] || fail "mintid formats lists: $formats"

# ---- gen --------------------------------------------------------------------------
for f in $formats; do
    run 0 "$M" gen "$f" -n 2000
    same "$(wc -l <"$tmp/out")" 2000
    same "$(sort -u "$tmp/out" | wc -l)" 2000
    run 0 "$M" gen "$f"
    same "$(wc -l <"$tmp/out")" 1
done
run 0 "$M" gen nanoflake -n 5 --node 1023 --epoch 2015-01-01T00:00:00Z --as int
same "$(wc -l <"$tmp/out")" 5
run 0 "$M" gen nanoflake --as padded
same "${#out}" 13
run 0 "$M" gen scru160 --as hex
same "${#out}" 40
run 0 "$M" gen ulid-flake --entropy-size 3 -n 100 --overflow wait
run 0 "$M" gen nanoflake -n 10 --local
same "$(wc -l <"$tmp/out")" 10

# ---- the host-wide generator -------------------------------------------------------
# Runs of every format, 8 at a time (xargs -P, as cron jobs or a build
# script would run them): not one ID twice. 40 runs of each here (8 in a
# sanitizer build, whose processes start slowly, and where test_host runs
# the same library code), 200 in make soak (MINTID_PARALLEL_RUNS). Formats
# with a small capacity (sonyflake's 25.6 IDs per ms) mint fewer per run.
runs=40
[ "$no_faketime" = --no-faketime ] && runs=8
runs=${MINTID_PARALLEL_RUNS:-$runs}
for f in $formats; do
    cap=$("$M" formats | awk -v f="$f" '/^[a-z]/ { cur = $1 } cur == f && $1 == "capacity:" && $2 ~ /^[0-9]+$/ { print $2 }')
    n=1000
    [ -n "$cap" ] && [ "$cap" -lt 200 ] && n=$((cap * 5))
    seq "$runs" | xargs -P 8 -I{} "$M" gen "$f" -n "$n" >"$tmp/par" 2>"$tmp/par.err" || fail "parallel gen $f: $(head -c 300 "$tmp/par.err")"
    same "$(wc -l <"$tmp/par")" $((runs * n))
    dups=$(sort "$tmp/par" | uniq -d | wc -l)
    [ "$dups" = 0 ] || fail "$runs parallel runs of gen $f -n $n: $dups IDs repeated"
done
# The state deleted under a running generator, and a new run on a new state
# beside it: the first moves to the new state, raised above its own IDs.
"$M" gen nanoflake -n 4000000 --as hex >"$tmp/a" 2>"$tmp/a.err" &
first=$!
for _ in $(seq 100); do [ -s "$tmp/a" ] && break; sleep 0.01; done
sleep 0.2
rm -f "$MINTID_HOST_DIR"/mintid-nanoflake-*
run 0 "$M" gen nanoflake -n 1000000 --as hex
cp "$tmp/out" "$tmp/b"
wait $first || fail "gen nanoflake with its state deleted: $(cat "$tmp/a.err")"
LC_ALL=C sort -c -u "$tmp/a" 2>/dev/null || fail "gen nanoflake with its state deleted: not strictly increasing"
dups=$(sort "$tmp/a" "$tmp/b" | uniq -d | wc -l)
[ "$dups" = 0 ] || fail "gen nanoflake beside a run whose state was deleted: $dups IDs repeated"
# A run under a clock an hour ahead leaves the host's state there: a later
# run waits for the clock (--max-wait) and says why, and --local still mints.
if [ "$no_faketime" != --no-faketime ] && command -v faketime >/dev/null; then
    new_host
    FAKETIME_DONT_FAKE_MONOTONIC=1 run 0 faketime -f '+1h' "$M" gen uexky -n 3
    run 3 "$M" gen uexky --max-wait 10
    has_err "wait limit reached"
    has_err "has minted up to"
    has_err "ahead of the clock"
    run 0 "$M" gen uexky --local
    MINTID_HOST_DIR=$tmp/host
fi
# A directory that is not there: a clear error, no IDs.
MINTID_HOST_DIR=$tmp/none run 3 "$M" gen nanoflake
has_err "cannot use the host-wide state in $tmp/none: No such file or directory"
has_err "No such file or directory"
same "$out" ""
# A clock reading shared by up to 256 IDs: still unique and in order, as text.
for f in scru160 uuidv7 nanoflake; do
    run 0 "$M" gen "$f" -n 20000 --ids-per-reading 256 --as hex
    same "$(wc -l <"$tmp/out")" 20000
    LC_ALL=C sort -c -u "$tmp/out" 2>/dev/null || fail "gen $f --ids-per-reading 256: not strictly increasing"
done
for bad in 0 257 x; do
    run 2 "$M" gen scru160 --ids-per-reading "$bad"
    has_err "--ids-per-reading '$bad': give 1 to 256"
done

run 2 "$M"
run 2 "$M" frobnicate
has_err "unknown command 'frobnicate'; commands are gen, inspect, convert, range, formats"
run 2 "$M" gen
has_err "gen needs a FORMAT"
run 2 "$M" gen moonflake
has_err "unknown format 'moonflake'"
run 2 "$M" gen moon
has_err "unknown format 'moon'; formats are uexky, scru160"
grep -qF "did you mean" "$tmp/err" && fail "a name far from every format got a suggestion: $err"
run 2 "$M" gen uuid
has_err "unknown format 'uuid'; did you mean 'uuidv7'?"
run 2 "$M" gen UUIDv7
has_err "unknown format 'UUIDv7'; did you mean 'uuidv7'?"
run 2 "$M" gen nanoflak
has_err "unknown format 'nanoflak'; did you mean 'nanoflake'?"
run 2 "$M" inspect --format ulidflake 02MZE4DVKM019
has_err "did you mean 'ulid-flake'?"
for n in 0 -5 abc 1e3 " 5" 5x 1000000000000001; do
    run 2 "$M" gen nanoflake -n "$n"
    has_err "give a count from 1 to 10^15"
done
run 2 "$M" gen nanoflake --node 1024
has_err "--node: node 1024 is out of range: nanoflake's node ids are 0..1023"
run 2 "$M" gen ulid-flake-scalable --node 32
has_err "ulid-flake-scalable's node ids are 0..31"
run 2 "$M" gen uexky --node 1
has_err "uexky has no node id"
run 2 "$M" gen uexky --epoch 0
has_err "uexky has a fixed epoch"
run 2 "$M" gen nanoflake --epoch 2999-01-01
has_err "is in the future"
run 2 "$M" gen nanoflake --epoch yesterday
has_err "is not a time"
run 2 "$M" gen uexky --as padded
has_err "uexky has no 'padded' form"
run 2 "$M" gen uexky --as bogus
has_err "--as: unknown form 'bogus'; uexky's forms are text, int, hex"
run 2 "$M" gen ulid-flake-scalable --entropy-size 3
has_err "takes 1..2 bytes"
run 2 "$M" gen nanoflake --overflow maybe
run 2 "$M" gen nanoflake --rollback maybe

# ---- inspect --------------------------------------------------------------------------
run 0 "$M" inspect --format nanoflake --epoch 1420070400000 175928847298985984
same "$out" '{"format":"nanoflake","text":"1c49kkphl4ow","hex":"0271065ac1000000","int":"175928847298985984","unix_ms":1462015105796,"time":"2016-04-30T11:18:25.796Z","generator":0,"sequence":0}'
run 0 "$M" inspect xinaS8QBh
same "$out" '{"format":"uexky","text":"xinaS8QBh","hex":"0027692f10061c62","int":"11093174944930914","unix_ms":1562179504129,"time":"2019-07-03T18:45:04.129Z","sequence":270,"random":98}'
run 0 "$M" inspect 05U0GF0J0SP1ADJPT0U4VHIMCJJAIP51
same "$out" '{"format":"scru160","text":"05U0GF0J0SP1ADJPT0U4VHIMCJJAIP51","hex":"017c083c130732153679e83c4fc65664e6a964a1","unix_ms":1632225727239,"time":"2021-09-21T12:02:07.239Z","counter":12821,"random16":13945,"random80":"1096701577047146014270625"}'
run 0 "$M" inspect b5JikCvNEnD
same "$out" '{"format":"caloriosa","text":"b5JikCvNEnD","hex":"81334be9d56ab801","int":"9309868322384951297","unix_ms":1503851121493,"time":"2017-08-27T16:25:21.493Z","random":2734,"increment":1}'
run 0 "$M" inspect --format ulid-flake-scalable 00f2nc9texq0z
same "$out" '{"format":"ulid-flake-scalable","text":"00F2NC9TEXQ0Z","hex":"003c556274eedc1f","int":"16982379959606303","unix_ms":1720262859598,"time":"2024-07-06T10:47:39.598Z","randomness":30432,"scalability":31}'

# Invalid input: a precise message, status 1, the valid IDs still printed.
run 1 "$M" inspect --format ulid-flake 8000000000000 00F2N078MDT7J
has_err "ulid-flake: '8000000000000' exceeds 7ZZZZZZZZZZZZ (2^63-1)"
same "$(wc -l <"$tmp/out")" 1
run 1 "$M" inspect --format ulid-flake 00F2N078MDT7L
has_err "'L' at position 13 is not a ulid-flake digit"
run 1 "$M" inspect --format ulid-flake 00F2N078MDT7
has_err "has the wrong length (12); a ulid-flake text is 13 characters"
run 1 "$M" inspect --format ulid-flake --from int 99999999999999999999
has_err "exceeds 2^63-1"
run 1 "$M" inspect --format nanoflake --from int 0123
has_err "a decimal integer has no leading zero"
run 1 "$M" inspect --format nanoflake --from hex 0271065ac100000g
has_err "'g' at position 16 is not a nanoflake digit (0123456789abcdef)"
run 1 "$M" inspect 00F2N078MDT7J
has_err "ambiguous: it could be ulid-flake, ulid-flake-scalable or nanoflake; say which with --format"
[ -z "$out" ] || fail "ambiguous input printed output"
run 1 "$M" inspect 'not an id!'
has_err "does not have the shape of any format's ID"
# The seed's old 48-bit example decodes when asked for, but is not guessed.
run 0 "$M" inspect --format caloriosa katjjMQN
case "$out" in *'"int":"71027147798529"'*) ;; *) fail "katjjMQN: $out" ;; esac
printf 'xinaS8QBh\n\n$(evil)\033[31m\nAABA\n' >"$tmp/in"
run 1 "$M" inspect <"$tmp/in"
same "$(wc -l <"$tmp/out")" 2
has_err "an empty text is not an ID"
has_err '\x1b[31m'
run 2 "$M" inspect --format uexky -IDyhnygA_
has_err "an ID that starts with '-' goes after '--'"
run 0 "$M" inspect --format uexky -- -IDyhnygA_
run 2 "$M" inspect --from hex 00
has_err "--from needs --format"
run 2 "$M" inspect --format uexky --epoch 0 AABA

# Without --format, freshly minted IDs of every format are recognised (those
# of a shape several formats share, by their recent timestamp).
for f in uexky scru160 caloriosa nanoflake uuidv7 ulid scru128 ksuid; do
    "$M" gen "$f" -n 20000 >"$tmp/ids"
    run 0 "$M" inspect <"$tmp/ids"
    same "$(grep -c "\"format\":\"$f\"" "$tmp/out")" 20000
done
# A prefixed TypeID is only a TypeID; a bare one is also a lower-case ULID,
# and a decimal string is a snowflake, a sonyflake and a nanoflake.
"$M" gen typeid --prefix user -n 2000 >"$tmp/ids"
run 0 "$M" inspect <"$tmp/ids"
same "$(grep -c '"format":"typeid","text":"user_[0-9a-z]\{26\}","hex":"[0-9a-f]\{32\}","prefix":"user"' "$tmp/out")" 2000
run 1 "$M" inspect "$("$M" gen typeid)"
has_err "it could be ulid or typeid"
run 1 "$M" inspect "$("$M" gen snowflake)"
has_err "it could be nanoflake, snowflake or sonyflake"

# Type prefixes and named epochs.
run 0 "$M" convert --format typeid --to text --prefix user 017f22e2-79b0-7cc3-98c4-dc0c0c07398f
same "$out" user_01fwhe4ydgfk1shh6w1g60eecf
run 0 "$M" convert --to uuid user_01fwhe4ydgfk1shh6w1g60eecf
same "$out" 017f22e2-79b0-7cc3-98c4-dc0c0c07398f
run 0 "$M" range typeid 1645557742000 --prefix user
same "$out" "$(printf 'user_01fwhe4ydge008000000000000\nuser_01fwhe4ydgfzzvzzzzzzzzzzzz')"
for p in User 9x _x x_ "$(printf 'a%.0s' {1..64})"; do
    run 2 "$M" gen typeid --prefix "$p"
    has_err "a typeid prefix is 1 to 63 of a-z and '_'"
done
run 2 "$M" gen uuidv7 --prefix user
has_err "uuidv7 has no type prefix"
run 2 "$M" gen typeid --prefix user --as uuid
has_err "only typeid's text form carries a prefix"
run 1 "$M" inspect --format typeid User_01fwhe4ydgfk1shh6w1g60eecf
run 0 "$M" inspect --format snowflake --epoch discord 175928847299117063
case "$out" in *'"unix_ms":1462015105796,'*'"node":32,"datacenter":1,"worker":0,"sequence":7}') ;; *) fail "discord: $out" ;; esac
run 2 "$M" gen snowflake --epoch discorde
has_err "or one of twitter, discord"
run 2 "$M" gen nanoflake --epoch discord
run 1 "$M" inspect --format scru160 017c083c130732153679e83c4fc65664e6a964ag
has_err "'g' at position 40 is not a scru160 digit (0123456789abcdef)"
run 0 "$M" inspect --format caloriosa katjjMQN
has_err "warning: caloriosa: 'katjjMQN' decodes, but is not a valid caloriosa"
run 2 "$M" inspect -kEAiKvi1A
has_err "unknown option '-k' (an ID that starts with '-' goes after '--')"
run 2 "$M" gen nanoflake -n
has_err "-n needs a value"
run 2 "$M" gen nanoflake --bogus
has_err "unknown option '--bogus'"
# The hint about IDs that start with '-' is for the commands that take IDs.
for cmd in "formats --json" "gen nanoflake --json" "range nanoflake 0 --json"; do
    run 2 "$M" $cmd
    has_err "unknown option '--json'"
    grep -qF "starts with '-'" "$tmp/err" && fail "$cmd: a hint about IDs where no ID is taken: $err"
done

# Everything gen prints, inspect reads back, in every form the format has;
# the forms it lacks are refused as usage errors, not skipped.
declare -A forms_of=([uexky]="text int hex" [scru160]="text hex" [ulid-flake]="text int hex"
    [ulid-flake-scalable]="text int hex" [caloriosa]="text int hex core" [nanoflake]="text int hex padded"
    [uuidv7]="text hex" [ulid]="text hex uuid" [scru128]="text hex" [snowflake]="text int hex"
    [sonyflake]="text int hex" [ksuid]="text hex" [typeid]="text hex uuid")
for f in $formats; do
    run 0 "$M" formats --format "$f"
    same "$(sed -n 's/^  text forms: //p' "$tmp/out")" "${forms_of[$f]}"
    for form in text int hex padded core uuid; do
        case " ${forms_of[$f]} " in
        *" $form "*)
            run 0 "$M" gen "$f" --as "$form" -n 50
            cp "$tmp/out" "$tmp/ids"
            same "$(wc -l <"$tmp/ids")" 50
            run 0 "$M" inspect --format "$f" --from "$form" <"$tmp/ids"
            same "$(wc -l <"$tmp/out")" 50
            ;;
        *)
            run 2 "$M" gen "$f" --as "$form" -n 50
            has_err "$f has no '$form' form"
            ;;
        esac
    done
done

# Input lines are bounded: a line longer than 4096 bytes is an invalid input
# named by its line number, and the lines around it are still read.
{ echo xinaS8QBh; head -c 4097 /dev/zero | tr '\0' a; echo; echo xinaS8QBh; } >"$tmp/in"
run 1 "$M" inspect <"$tmp/in"
same "$(wc -l <"$tmp/out")" 2
has_err "mintid: standard input line 2 is longer than 4096 bytes"
# At the limit, the line is read as an ID (and is not one).
{ head -c 4096 /dev/zero | tr '\0' a; echo; } >"$tmp/in"
run 1 "$M" inspect --format uexky <"$tmp/in"
[ -z "$(grep -F 'longer than' "$tmp/err")" ] || fail "a 4096-byte line was called too long: $err"
# However long the line, it is skipped, not held: 64 MiB with no line end.
run 1 sh -c "{ echo xinaS8QBh; head -c 67108864 /dev/zero; } | '$M' convert --to hex"
same "$(wc -l <"$tmp/out")" 1
has_err "mintid: standard input line 2 is longer than 4096 bytes"

# ---- convert --------------------------------------------------------------------------
run 0 "$M" convert --format nanoflake --to text 175928847298985984
same "$out" 1c49kkphl4ow
run 0 "$M" convert --format nanoflake --to padded 175928847298985984
same "$out" 01c49kkphl4ow
run 0 "$M" convert --to int 1c49kkphl4ow
same "$out" 175928847298985984
run 0 "$M" convert --to text 017c083c130732153679e83c4fc65664e6a964a1
same "$out" 05U0GF0J0SP1ADJPT0U4VHIMCJJAIP51
run 0 "$M" convert --format caloriosa --to core b5JikCvNEnD
same "$out" B5jIKcVneNd
run 2 "$M" convert --format scru160 --to int 05U0GF0J0SP1ADJPT0U4VHIMCJJAIP51
has_err "scru160 has no 'int' form"
run 2 "$M" convert xinaS8QBh
has_err "convert needs --to FORM"

# ---- range ----------------------------------------------------------------------------
# Nanoflake's range by the layout: (T - epoch) << 22 up to the next millisecond's start - 1.
run 0 "$M" range nanoflake 1795425679349 --as int
same "$out" "$(( (1795425679349 - 1288834974657) << 22 ))
$(( ((1795425679349 - 1288834974657 + 1) << 22) - 1 ))"
run 0 "$M" range nanoflake 1795425679349 1795425679350 --epoch 2015-01-01 --as int
same "$out" "$(( (1795425679349 - 1420070400000) << 22 ))
$(( ((1795425679350 - 1420070400000 + 1) << 22) - 1 ))"
# Every format: IDs minted now lie inside the range of a window around now,
# in the order their hex (a fixed-width big-endian form) sorts.
for f in $formats; do
    before=$(date +%s%3N)
    run 0 "$M" gen "$f" -n 100 --as hex
    minted=$out
    after=$(date +%s%3N)
    run 0 "$M" range "$f" "$before" "$after" --as hex
    lo=$(echo "$out" | head -1); hi=$(echo "$out" | tail -1)
    sorted=$(printf '%s\n%s\n%s\n' "$lo" "$minted" "$hi" | LC_ALL=C sort)
    same "$(echo "$sorted" | head -1)" "$lo"
    same "$(echo "$sorted" | tail -1)" "$hi"
done
run 2 "$M" range nanoflake 2026-01-02 2026-01-01
has_err "is before FROM"
run 2 "$M" range uexky 1
has_err "cannot carry that time"
run 2 "$M" range uexky 1 --epoch 0
has_err "has a fixed epoch"
run 2 "$M" range nanoflake yesterday
has_err "is not Unix ms or RFC 3339"

# ---- formats --------------------------------------------------------------------------
run 0 "$M" formats
for f in $formats; do grep -q "^$f\$" "$tmp/out" || fail "formats does not list $f"; done
grep -q "runs out 2080-07-10T17:30:30.208Z" "$tmp/out" || fail "nanoflake lifespan with the default epoch"
run 0 "$M" formats --format nanoflake --epoch 2020-01-01
grep -q "runs out 2089-09-06T15:47:35.551Z" "$tmp/out" || fail "nanoflake lifespan with --epoch: $out"
run 0 "$M" --help
for word in "--version" "  range FORMAT FROM" "formats [--format FORMAT]"; do
    grep -qF -- "$word" "$tmp/out" || fail "--help lacks '$word'"
done
run 0 "$M" --version

# ---- the whole process under a faked clock (libfaketime) -------------------------------
if [ "$no_faketime" = --no-faketime ]; then
    echo "skipping the libfaketime tests (sanitizer build)"
elif command -v faketime >/dev/null; then
    # The wait limit is measured on the monotonic clock, so that must stay real.
    export FAKETIME_DONT_FAKE_MONOTONIC=1 ASAN_OPTIONS=${ASAN_OPTIONS:-}:verify_asan_link_order=0
    # Before a format's epoch, or past its end: an error, never a wrapped timestamp.
    new_host
    run 3 faketime '2017-06-01 00:00:00' "$M" gen uexky
    has_err "timestamp outside the format's range"
    new_host
    run 3 faketime '2081-01-01 00:00:00' "$M" gen nanoflake
    has_err "timestamp outside the format's range"
    new_host
    run 2 faketime '2009-01-01 00:00:00' "$M" gen nanoflake
    has_err "is in the future"
    # A clock past the format's last millisecond mints nothing and leaves
    # the host's new state where the real clock is: the next run mints.
    new_host
    run 3 faketime '2081-01-01 00:00:00' "$M" gen snowflake
    has_err "timestamp outside the format's range"
    run 0 "$M" gen snowflake --max-wait 1000
    # A clock that stands still: one millisecond's worth, then a bounded wait
    # and an error. (A process generator: a new host-wide state mints nothing
    # until the clock has moved on past its first 100 ms.)
    new_host
    run 3 faketime -f '2026-06-01 00:00:00' "$M" gen nanoflake -n 5000 --max-wait 50 --local
    same "$(wc -l <"$tmp/out")" 4096
    has_err "wait limit reached"
    new_host
    run 3 faketime -f '2026-06-01 00:00:00' "$M" gen caloriosa -n 5000 --overflow fail --local
    same "$(wc -l <"$tmp/out")" 1023
    has_err "sequence exhausted"
    new_host
    run 3 faketime -f '2026-06-01 00:00:00' "$M" gen uexky -n 5000 --max-wait 20 --local
    same "$(wc -l <"$tmp/out")" 512
    run 0 "$M" inspect --format uexky -- "$(tail -n 1 "$tmp/out")"
    case "$out" in *'"time":"2026-06-01T00:00:00.000Z"'*'"sequence":511'*) ;; *) fail "frozen uexky: $out" ;; esac
else
    fail "faketime is not installed (make deps installs it)"
fi

# ---- output errors ------------------------------------------------------------------------
# Whatever printed it, output that cannot be written is a failure (status 3).
if [ -w /dev/full ]; then
    for cmd in "gen nanoflake -n 100000" "gen nanoflake -n 10" "gen nanoflake" "--help" "--version" "gen --help" \
        "inspect --help" "formats" "inspect xinaS8QBh" "convert --to int 1c49kkphl4ow"; do
        run 3 sh -c "'$M' $cmd > /dev/full"
        has_err "mintid: writing standard output: No space left on device"
        [ "$(grep -c . "$tmp/err")" = 1 ] || fail "$cmd > /dev/full: one message expected, got: $err"
    done
    printf 'xinaS8QBh\n' >"$tmp/in"
    run 3 sh -c "'$M' inspect <'$tmp/in' > /dev/full"
    has_err "mintid: writing standard output"
else
    fail "/dev/full is not writable: the output error checks cannot run"
fi

[ "$fails" = 0 ] && echo ok || { echo "$fails failure(s)" >&2; exit 1; }
