# Sourced by ./hob and .ci/run: makes "$DENO" a Deno 2.9.x, installing the
# pinned release under .deno/ (from the npm package `deno`) when the machine has
# none. It needs only Node.js/npm on a bare machine, or only Deno.
HOB_DENO_VERSION="2.9.6"
hob_root=${hob_root:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}

hob_deno_ok() { "$1" --version 2>/dev/null | head -n 1 | grep -q '^deno 2\.9\.'; }

DENO=""
if [ -n "${HOB_DENO:-}" ] && hob_deno_ok "$HOB_DENO"; then
  DENO=$HOB_DENO
elif command -v deno >/dev/null 2>&1 && hob_deno_ok "$(command -v deno)"; then
  DENO=$(command -v deno)
else
  local_deno="$hob_root/.deno/node_modules/deno/deno"
  if ! hob_deno_ok "$local_deno"; then
    if ! command -v npm >/dev/null 2>&1; then
      echo "hob: needs Deno 2.9.x or Node.js/npm to install it — see https://docs.deno.com" >&2
      exit 1
    fi
    echo "hob: installing Deno $HOB_DENO_VERSION into .deno/ (once)…" >&2
    mkdir -p "$hob_root/.deno"
    (cd "$hob_root/.deno" && [ -f package.json ] || echo '{"private":true}' >package.json)
    npm install --prefix "$hob_root/.deno" --no-audit --no-fund --loglevel=error \
      "deno@$HOB_DENO_VERSION" >&2
    if ! hob_deno_ok "$local_deno"; then
      # The package's postinstall links the platform binary; fall back to it.
      for candidate in "$hob_root"/.deno/node_modules/@deno/*/deno; do
        if hob_deno_ok "$candidate"; then local_deno=$candidate; break; fi
      done
    fi
    if ! hob_deno_ok "$local_deno"; then
      echo "hob: could not install Deno $HOB_DENO_VERSION with npm" >&2
      exit 1
    fi
  fi
  DENO=$local_deno
fi
export DENO
export PATH="$(dirname "$DENO"):$PATH"
