# Shared by the benchmark harnesses' run.sh scripts (sourced, not run). After `bench_setup USAGE "$@"`:
# $profile (quick or full; anything else prints USAGE and exits 2), $root (the repository, the working
# directory), $here (benchmarks/). `bench_build` builds the benchmarks module and sets $cp to its classpath.

bench_setup() {
  local usage=$1
  shift
  profile=${1:-quick}
  case "$profile" in
    quick|full) ;;
    *) echo "usage: $usage" >&2; exit 2 ;;
  esac
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  root=$(cd "$here/.." && pwd)
  cd "$root"
}

bench_build() {
  echo "== building the benchmarks"
  mvn -B -q package dependency:build-classpath -pl benchmarks -am -DskipTests \
    -Dmdep.outputFile=target/classpath.txt -DincludeScope=runtime
  cp="$here/target/classes:$(cat "$here/target/classpath.txt")"
}
