#!/usr/bin/env bash
# Builds some of librdkafka's integration tests from Debian's librdkafka source package against the
# packaged librdkafka-dev, for test/interop/librdkafka-*.test.ts.
#   librdkafka-tests.sh fetch <dir>                     the source package into <dir> (deb-src enabled first)
#   librdkafka-tests.sh build <dir> <binary> <file>...  the test runner with the tests of those files
#                                                       (such as 0077-compaction.c) alone, the other
#                                                       tests' entry points empty
#   librdkafka-tests.sh library <src> <dir>             librdkafka.so.1 built from the librdkafka source
#                                                       tree <src> (such as a release's) into <dir>, for
#                                                       the tests to load in place of the packaged one
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
    shift 3
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    # A test's entry point is main_ and its file's name, dashes made underscores.
    kept=$(printf '%s\n' "$@" | sed 's/\.[a-z]*$//; s/-/_/g')
    # The tests' entry points but those kept, as test.c declares them.
    grep -o '_TEST_DECL([0-9a-z_]*)' "$src/tests/test.c" | sed 's/_TEST_DECL(\(.*\))/\1/' | grep -vxF "$kept" |
      sed 's/.*/int main_&(int argc, char **argv) { (void)argc; (void)argv; return 0; }/' >"$work/others.c"
    # config.h, which the tests' headers include, comes from the source's configure.
    [ -f "$src/config.h" ] || (cd "$src" && ./configure --disable-ssl --disable-gssapi >/dev/null)
    # Relative names: a test names its topic after its file.
    cd "$src/tests"
    c=(test.c rusage.c sockem.c sockem_ctrl.c ../src/tinycthread.c ../src/tinycthread_extra.c ../src/rdlist.c "$work/others.c")
    cpp=()
    for file in "$@"; do
      case "$file" in
        *.cpp) cpp+=("$file") ;;
        *) c+=("$file") ;;
      esac
    done
    if [ ${#cpp[@]} -eq 0 ]; then
      gcc -O1 -w -I../src -I.. -o "$out" "${c[@]}" -lrdkafka -lpthread -lm -ldl
    else
      # The C++ tests' helpers (testcpp.cpp) and the packaged C++ binding.
      for file in "${c[@]}"; do gcc -O1 -w -I../src -I.. -c -o "$work/$(basename "$file").o" "$file"; done
      g++ -O1 -w -I../src -I../src-cpp -I.. -o "$out" "${cpp[@]}" testcpp.cpp "$work"/*.o -lrdkafka++ -lrdkafka -lpthread -lm -ldl
    fi
    ;;
  library)
    src=$(realpath "$2")
    out=$(realpath -m "$3")
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    # configure writes into the tree it runs in, and takes any configure.* file there for a module.
    cp -r "$src/." "$work"
    cd "$work"
    ./configure --disable-ssl --disable-gssapi --disable-zstd --disable-curl >/dev/null
    make -C src -j2 librdkafka.so.1 >/dev/null
    mkdir -p "$out"
    cp src/librdkafka.so.1 "$out/"
    ;;
  *)
    echo "usage: $0 fetch <dir> | build <dir> <binary> <file>... | library <src> <dir>" >&2
    exit 2
    ;;
esac
