//! Static linking of a package's programs on Linux with glibc, shared by
//! the build scripts of the engine (its examples) and of the `yolah`
//! command.
//!
//! A statically linked program starts without the dynamic loader: no
//! shared library to find, map and relocate, no symbol to look up. An
//! engine-only program then starts a little faster than `true` (dynamic),
//! where linked dynamically it takes about 1.5 times as long.
//!
//! rustc names the system libraries of the standard library on the link
//! line (`-lgcc_s -lutil -lrt -lpthread -lm -ldl -lc`), and the
//! `crt-static` target feature that would make them static applies to
//! every crate of a build, which the proc-macros and the Python module
//! cannot be. So [`link_statically`] writes, in `OUT_DIR`, one small linker
//! script per such name that stands for its static archive (`libc.so`
//! holding `GROUP(-l:libc.a -l:libgcc_eh.a -l:libgcc.a)`), puts that
//! directory in the library search path, and asks for a static program,
//! for the targets named only: position independent
//! (`-static-pie`) or not (`-no-pie -static`), as [`Link`] says.
//!
//! A static PIE keeps the address randomisation of the program's own code
//! and data, and relocates itself at every start: about 10,000 relocations
//! over 120 KB of pointers for `yolah`, some 0.1 ms and 20 more page
//! faults. `yolah perft 1` then takes 1.1 to 1.2 times a bare process,
//! against 1.0 for a fixed address (docs/measurements.md). The `yolah`
//! command listens on the network (`yolah serve`), so it keeps the
//! randomisation by default; the environment variable `YOLAH_LINK` chooses
//! at build time: `static-pie` (the default), `static` (a fixed address,
//! the fastest start) or `dynamic` (as rustc links by default). The
//! engine's examples, which only compute, are static at a fixed address:
//! they show the engine's own start-up cost, none.
//!
//! When a static archive is missing (a system without static glibc), or
//! when cross-compiling, the programs are linked as usual and a warning
//! says so.

use std::path::{Path, PathBuf};
use std::process::Command;

/// What each library rustc names is linked from: the static archives,
/// grouped where they depend on each other (libgcc_eh unwinds panics;
/// libgcc_s is its shared form).
const SCRIPTS: [(&str, &str); 7] = [
    ("gcc_s", "GROUP(-l:libgcc_eh.a -l:libgcc.a)"),
    ("util", "INPUT(-l:libutil.a)"),
    ("rt", "INPUT(-l:librt.a)"),
    ("pthread", "INPUT(-l:libpthread.a)"),
    ("m", "INPUT(-l:libm.a)"),
    ("dl", "INPUT(-l:libdl.a)"),
    ("c", "GROUP(-l:libc.a -l:libgcc_eh.a -l:libgcc.a)"),
];

/// How a program is linked statically.
#[derive(Clone, Copy)]
pub enum Link {
    /// At a fixed address (`-no-pie -static`).
    Static,
    /// Position independent, randomised at every start (`-static-pie`).
    StaticPie,
}

/// The link `YOLAH_LINK` asks for, `default` when it is not set; `None`
/// for `dynamic`.
#[allow(dead_code)] // the engine's build script links its examples one way
pub fn link_from_env(default: Link) -> Option<Link> {
    println!("cargo:rerun-if-env-changed=YOLAH_LINK");
    match std::env::var("YOLAH_LINK").unwrap_or_default().as_str() {
        "" => Some(default),
        "static" => Some(Link::Static),
        "static-pie" => Some(Link::StaticPie),
        "dynamic" => None,
        other => panic!("YOLAH_LINK={other}: it must be static-pie, static or dynamic"),
    }
}

/// Links the targets `which` names statically, as `link` says, when the
/// target is Linux with glibc and the static archives are installed.
/// `which` is the tail of Cargo's `rustc-link-arg-…` instruction: `bins`,
/// `examples`, `bin=NAME`.
pub fn link_statically(which: &str, link: Link) {
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    if var("CARGO_CFG_TARGET_OS") != "linux"
        || var("CARGO_CFG_TARGET_ENV") != "gnu"
        || var("TARGET") != var("HOST")
    {
        return;
    }
    let cc = std::env::var("RUSTC_LINKER").unwrap_or_else(|_| "cc".into());
    let archives = [
        "libc.a",
        "libm.a",
        "libgcc_eh.a",
        "libgcc.a",
        "libpthread.a",
        "libdl.a",
        "librt.a",
        "libutil.a",
    ];
    if let Some(missing) = archives.iter().find(|a| !installed(&cc, a)) {
        println!(
            "cargo:warning=no {missing} for {cc}: {which} linked dynamically (slower to start; \
             install the static C library, such as libc6-dev or glibc-static)"
        );
        return;
    }
    let dir = PathBuf::from(var("OUT_DIR")).join("static-libs");
    std::fs::create_dir_all(&dir)
        .unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    for (name, script) in SCRIPTS {
        let path = dir.join(format!("lib{name}.so"));
        std::fs::write(&path, format!("{script}\n"))
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
    }
    let kind = match link {
        Link::StaticPie => vec!["-static-pie".to_string()],
        Link::Static => vec!["-no-pie".to_string(), "-static".into()],
    };
    for arg in kind.into_iter().chain([format!("-L{}", dir.display())]) {
        println!("cargo:rustc-link-arg-{which}={arg}");
    }
}

/// Whether the C compiler finds `archive` (it answers the bare name when
/// it does not).
fn installed(cc: &str, archive: &str) -> bool {
    Command::new(cc)
        .arg(format!("-print-file-name={archive}"))
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_string())
        .is_some_and(|path| Path::new(&path).is_absolute() && Path::new(&path).exists())
}
