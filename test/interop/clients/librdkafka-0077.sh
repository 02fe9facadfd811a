#!/usr/bin/env bash
# Builds librdkafka's integration test 0077 (compaction) from Debian's librdkafka source package
# against the packaged librdkafka-dev, for test/interop/librdkafka-0077.test.ts.
#   librdkafka-0077.sh fetch <dir>            the source package into <dir> (deb-src enabled first)
#   librdkafka-0077.sh build <dir> <binary>   the test runner with 0077 alone (the other tests' entry points empty)
set -euo pipefail
case "$1" in
  fetch)
    sources=/etc/apt/sources.list.d/debian.sources
    if [ -f "$sources" ] && ! grep -q '^Types: deb deb-src' "$sources"; then
      sed -i 's/^Types: deb$/Types: deb deb-src/' "$sources"
      apt-get update -qq
    fi
    mkdir -p "$2"
    cd "$2"
    apt-get source -qq librdkafka >/dev/null 2>&1
    ;;
  build)
    src=$(ls -d "$2"/librdkafka-*/ | head -n 1)
    out=$(realpath -m "$3")
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    # The tests' entry points but 0077's, as test.c declares them.
    grep -o '_TEST_DECL([0-9a-z_]*)' "$src/tests/test.c" | sed 's/_TEST_DECL(\(.*\))/\1/' | grep -v '^0077_compaction$' |
      sed 's/.*/int main_&(int argc, char **argv) { (void)argc; (void)argv; return 0; }/' >"$work/others.c"
    # config.h, which the tests' headers include, comes from the source's configure.
    [ -f "$src/config.h" ] || (cd "$src" && ./configure --disable-ssl --disable-gssapi >/dev/null)
    # Relative names: the test names its topic after its file.
    cd "$src/tests"
    gcc -O1 -w -I../src -I.. -o "$out" test.c 0077-compaction.c rusage.c sockem.c sockem_ctrl.c \
      ../src/tinycthread.c ../src/tinycthread_extra.c ../src/rdlist.c "$work/others.c" -lrdkafka -lpthread -lm -ldl
    ;;
  *)
    echo "usage: $0 fetch <dir> | build <dir> <binary>" >&2
    exit 2
    ;;
esac
