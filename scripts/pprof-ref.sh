# Sourced by the symbolize scripts: pprof_ref_setup DIR [module]
#
# Builds, into DIR, google/pprof's command as the reference (from the module
# at PPROF_REF_MOD, default /tmp/pprofref-mod, when there is one; else
# PPROF_REF, default /tmp/pprof-ref, is used as it is; "module" makes the
# module a must) and pprofx, both as README installs pprofx (CGO_ENABLED=0:
# a static binary, no dynamic loader at start-up), and links binutils alone
# (addr2line, nm, objdump, c++filt) into DIR/tools: with llvm-symbolizer on
# PATH pprof would use that instead. Sets ref to pprof's path. See
# testdata/symbolize/ref/README.
pprof_ref_setup() {
	local dir=$1 need=${2:-} mod=${PPROF_REF_MOD:-/tmp/pprofref-mod}
	ref=${PPROF_REF:-/tmp/pprof-ref}
	if [ -f "$mod/go.mod" ]; then
		(cd "$mod" && CGO_ENABLED=0 go build -o "$dir/pprof-ref" github.com/google/pprof)
		ref=$dir/pprof-ref
	elif [ "$need" = module ]; then
		echo "no pprof module at $mod (see testdata/symbolize/ref/README)" >&2
		exit 1
	fi
	[ -x "$ref" ] || { echo "no google/pprof command at $ref (see testdata/symbolize/ref/README)" >&2; exit 1; }
	CGO_ENABLED=0 go build -tags grpcnotrace -o "$dir/pprofx" ./cmd/pprofx
	mkdir "$dir/tools"
	local t
	for t in addr2line nm objdump c++filt; do ln -s "$(command -v $t)" "$dir/tools/$t"; done
}
