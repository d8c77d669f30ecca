# Shared by the project's commands: make the virtual environment and install into it.
# Sourced, not run. Works from a fresh clone with only python3 (3.11+) on the machine.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${VENV:-$ROOT/.venv}"

ensure_venv() {
    # $1: the extras to install ("" or "test"; "native", the compiler's tools, always comes
    # too). Says in one line what a slow install is doing; when everything is installed already
    # it says nothing. Then it builds the compiled engine and solver (ensure_build).
    local extras="native${1:+,$1}" stamp="$VENV/.installed-${1:-base}"
    local what="crescent-race[$extras]"
    if [ -f "$stamp" ] && [ ! "$ROOT/pyproject.toml" -nt "$stamp" ]; then
        ensure_build
        return 0
    fi
    if [ ! -x "$VENV/bin/python" ]; then
        echo "==> first run: installing $what and its dependencies into ${VENV#"$ROOT"/} (a minute or two, once)"
        python3 -m venv "$VENV"
    else
        echo "==> installing $what and its dependencies into ${VENV#"$ROOT"/} (a minute or so)"
    fi
    "$VENV/bin/python" -m pip install -q --upgrade pip
    "$VENV/bin/python" -m pip install -q -e "$ROOT[$extras]"
    touch "$stamp"
    ensure_build
}

ensure_build() {
    # Compile race.engine's and race.solver's hot modules with mypyc when a C compiler is
    # here and a source is newer than its build; one line says it compiles, or why the pure
    # Python modules run instead. Quiet when the build is fresh. RACE_PURE=1 skips it.
    "$VENV/bin/python" "$ROOT/.ci/compile.py"
}

apt_install() {
    # Install Debian packages when their command is missing (needs root, as in CI).
    local missing=()
    for pair in "$@"; do
        local cmd="${pair%%:*}" pkg="${pair##*:}"
        command -v "$cmd" >/dev/null 2>&1 || missing+=("$pkg")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "==> installing ${missing[*]} from Debian's packages"
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}
