//! Contexts: the backend, the types and the plugins that programs are
//! compiled for (docs/ABI.md, "Life cycle").
use std::ffi::CString;
use std::os::raw::c_char;
use std::ptr::{self, NonNull};
use std::sync::Arc;
use std::time::Duration;

use accel_sys as sys;

use crate::error::{check, static_str, take_string, Error, Result};
use crate::graph::Graph;
use crate::program::Program;

/// Where programs run (`acc_backend`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Backend {
    /// The best available: cuda, then cpu, then interp.
    Auto,
    /// The reference interpreter; always available.
    Interp,
    /// C compiled by the system compiler.
    Cpu,
    /// CUDA C compiled with NVRTC.
    Cuda,
}

impl Backend {
    pub(crate) fn raw(self) -> sys::acc_backend {
        match self {
            Backend::Auto => sys::ACC_BACKEND_AUTO,
            Backend::Interp => sys::ACC_BACKEND_INTERP,
            Backend::Cpu => sys::ACC_BACKEND_CPU,
            Backend::Cuda => sys::ACC_BACKEND_CUDA,
        }
    }

    pub(crate) fn from_raw(b: sys::acc_backend) -> Backend {
        match b {
            sys::ACC_BACKEND_INTERP => Backend::Interp,
            sys::ACC_BACKEND_CPU => Backend::Cpu,
            sys::ACC_BACKEND_CUDA => Backend::Cuda,
            _ => Backend::Auto,
        }
    }

    /// accel's name for it: `"interp"`, `"cpu"`, `"cuda"`, `"auto"`.
    pub fn name(self) -> &'static str {
        // SAFETY: acc_backend_name returns a static string.
        unsafe { static_str(sys::acc_backend_name(self.raw())) }
    }
}

/// Options of a new context (`acc_context_options`); `Default` is accel's
/// defaults: the best backend, one worker per core, the default kernel
/// cache, the built-in plugins, no deadline.
#[derive(Debug, Clone, Default)]
pub struct ContextOptions {
    backend: Option<Backend>,
    num_threads: i32,
    cache_dir: Option<CString>,
    plugin_path: Option<CString>,
    plugins: Option<CString>,
    fusion_duplicate_max_ops: i32,
    cuda_device: i32,
    run_deadline: Option<Duration>,
}

fn c_string(what: &str, s: &str) -> Result<CString> {
    CString::new(s).map_err(|_| Error::InvalidArgument(format!("{what} contains a NUL byte")))
}

impl ContextOptions {
    /// accel's defaults.
    pub fn new() -> ContextOptions {
        ContextOptions::default()
    }
    /// The backend (default: [`Backend::Auto`]).
    pub fn backend(mut self, backend: Backend) -> Self {
        self.backend = Some(backend);
        self
    }
    /// Worker threads of the cpu backend (0: one per core).
    pub fn num_threads(mut self, n: i32) -> Self {
        self.num_threads = n;
        self
    }
    /// The kernel cache folder (default: `$XDG_CACHE_HOME/accel`).
    pub fn cache_dir(mut self, dir: &str) -> Result<Self> {
        self.cache_dir = Some(c_string("cache_dir", dir)?);
        Ok(self)
    }
    /// Folders searched first for plugins, separated by `:`.
    pub fn plugin_path(mut self, path: &str) -> Result<Self> {
        self.plugin_path = Some(c_string("plugin_path", path)?);
        Ok(self)
    }
    /// The plugins the context loads by itself: `"none"`, `"builtin"`, or
    /// a `,`-separated list of names and paths (default: `$ACC_PLUGINS`,
    /// else the built-in plugins of the backend).
    pub fn plugins(mut self, plugins: &str) -> Result<Self> {
        self.plugins = Some(c_string("plugins", plugins)?);
        Ok(self)
    }
    /// Lets fusion compute a producer of at most `ops` operations per
    /// element in each of its consumers (default 0: never duplicate work).
    pub fn fusion_duplicate_max_ops(mut self, ops: i32) -> Self {
        self.fusion_duplicate_max_ops = ops;
        self
    }
    /// The CUDA device the cuda backend runs on (default 0).
    pub fn cuda_device(mut self, device: i32) -> Self {
        self.cuda_device = device;
        self
    }
    /// The deadline of every run of the context's programs, from the start
    /// of the run: a run past it stops with [`Error::Timeout`].
    pub fn run_deadline(mut self, deadline: Duration) -> Self {
        self.run_deadline = Some(deadline);
        self
    }

    fn raw(&self) -> sys::acc_context_options {
        // SAFETY: an all-zero acc_context_options is a valid value for
        // acc_context_options_init_sized to fill.
        let mut o: sys::acc_context_options = unsafe { std::mem::zeroed() };
        // SAFETY: o is a valid, writable struct of the size given (the
        // sized call: the plain symbol writes only the first published
        // fields, accel.h).
        let st = unsafe { sys::acc_context_options_init_sized(&mut o, std::mem::size_of_val(&o)) };
        debug_assert_eq!(st, sys::ACC_OK);
        o.backend = self.backend.unwrap_or(Backend::Auto).raw();
        o.num_threads = self.num_threads;
        o.fusion_duplicate_max_ops = self.fusion_duplicate_max_ops;
        o.cuda_device = self.cuda_device;
        o.run_deadline_seconds = self.run_deadline.map_or(0.0, |d| d.as_secs_f64());
        let opt = |s: &Option<CString>| s.as_ref().map_or(ptr::null(), |c| c.as_ptr());
        o.cache_dir = opt(&self.cache_dir);
        o.plugin_path = opt(&self.plugin_path);
        o.plugins = opt(&self.plugins);
        o
    }
}

/// The owner of one `acc_context`: destroyed when the last of the
/// [`Context`] and the programs and execution handles made from it goes.
pub(crate) struct ContextHandle(NonNull<sys::acc_context>);

// SAFETY: the handle is only used (a) by the one Context, which is not
// Sync, and (b) by programs and execution handles to keep the context
// alive; those call no context function.  acc_context_destroy runs once,
// on whichever thread drops the last reference, when nothing else can use
// the context (docs/ABI.md, "Threads").
unsafe impl Send for ContextHandle {}
// SAFETY: as above: shared references only keep the context alive.
unsafe impl Sync for ContextHandle {}

impl ContextHandle {
    pub(crate) fn raw(&self) -> *mut sys::acc_context {
        self.0.as_ptr()
    }
}

impl Drop for ContextHandle {
    fn drop(&mut self) {
        // SAFETY: the last reference: every graph, program and execution
        // handle of the context is gone.
        unsafe { sys::acc_context_destroy(self.0.as_ptr()) }
    }
}

/// A context (`acc_context`): chooses the backend and owns the types and
/// plugins that programs are compiled with.
///
/// Programs made from a context keep it alive (reference counting), so a
/// `Context` may be dropped before its programs.  A [`Graph`] borrows it.
///
/// **Threads:** `Send` but not `Sync`.  docs/ABI.md promises nothing of
/// concurrent calls into one context (compiles, graph building, plugin
/// loads), so one thread at a time uses it; its programs, which are
/// `Sync`, run on any number of threads meanwhile.
pub struct Context {
    handle: Arc<ContextHandle>,
    // Not Sync: one thread at a time calls into the context.
    _not_sync: std::marker::PhantomData<std::cell::Cell<()>>,
}

impl Context {
    /// A context on the best available backend (cuda, then cpu, then
    /// interp).
    pub fn new() -> Result<Context> {
        Context::with_options(&ContextOptions::new())
    }

    /// A context on `backend`; [`Error::Unsupported`] says why it is not
    /// available.
    pub fn with_backend(backend: Backend) -> Result<Context> {
        Context::with_options(&ContextOptions::new().backend(backend))
    }

    /// A context with `options`.
    pub fn with_options(options: &ContextOptions) -> Result<Context> {
        let raw = options.raw();
        let mut ctx = ptr::null_mut();
        // SAFETY: raw and its strings (owned by options) are valid for the
        // call; ctx is written.
        check(unsafe { sys::acc_context_create(&raw, &mut ctx) })?;
        let handle = NonNull::new(ctx)
            .ok_or_else(|| Error::Internal("acc_context_create gave no context".into()))?;
        Ok(Context {
            handle: Arc::new(ContextHandle(handle)),
            _not_sync: std::marker::PhantomData,
        })
    }

    pub(crate) fn raw(&self) -> *mut sys::acc_context {
        self.handle.raw()
    }

    pub(crate) fn handle(&self) -> &Arc<ContextHandle> {
        &self.handle
    }

    /// The backend programs of this context run on (never `Auto`).
    pub fn backend(&self) -> Backend {
        let mut b = sys::ACC_BACKEND_AUTO;
        // SAFETY: a live context; b is written.
        let _ = unsafe { sys::acc_context_backend(self.raw(), &mut b) };
        Backend::from_raw(b)
    }

    /// Whether `backend` is available to this context, and accel's
    /// sentence saying why or why not.
    pub fn backend_available(&self, backend: Backend) -> (bool, String) {
        let mut available = 0;
        let mut reason: *const c_char = ptr::null();
        // SAFETY: a live context; the reason is owned by the context and
        // copied at once.
        unsafe {
            let _ = sys::acc_context_backend_available(
                self.raw(),
                backend.raw(),
                &mut available,
                &mut reason,
            );
            (available != 0, static_str(reason).to_owned())
        }
    }

    /// A new, empty graph to build a program in (see [`Graph`]).
    pub fn graph(&self) -> Result<Graph<'_>> {
        Graph::new(self)
    }

    /// Compiles the entry point `entry` of a text program (LANGUAGE.md §4);
    /// `None` picks the only entry point.  Parse errors are
    /// [`Error::Parse`] with a message starting `LINE:COLUMN:`.
    pub fn compile_text(&self, source: &str, entry: Option<&str>) -> Result<Program> {
        let entry = entry.map(|e| c_string("entry", e)).transpose()?;
        let mut p = ptr::null_mut();
        // SAFETY: source is passed with its length; entry is NULL or a C
        // string owned here; p is written.
        check(unsafe {
            sys::acc_compile_text(
                self.raw(),
                source.as_ptr().cast(),
                source.len(),
                entry.as_ref().map_or(ptr::null(), |e| e.as_ptr()),
                &mut p,
            )
        })?;
        Program::from_raw(p, self)
    }

    /// Loads a plugin by name (`"cblas"`) or path ([`Error::Plugin`] names
    /// the file and what is missing when it cannot be loaded).
    pub fn load_plugin(&self, name_or_path: &str) -> Result<()> {
        let name = c_string("plugin name", name_or_path)?;
        // SAFETY: a live context and a C string.
        check(unsafe { sys::acc_plugin_load(self.raw(), name.as_ptr()) })
    }

    /// One line per plugin the context loads by itself, and what became of
    /// it (`acc_plugin_status`).
    pub fn plugin_status(&self) -> Result<String> {
        let mut text = ptr::null_mut();
        // SAFETY: a live context; text is allocated by accel.
        check(unsafe { sys::acc_plugin_status(self.raw(), &mut text) })?;
        // SAFETY: accel allocated text.
        Ok(unsafe { take_string(text) })
    }

    /// Every foreign implementation registered in the context, one per line.
    pub fn foreign_list(&self) -> Result<String> {
        let mut text = ptr::null_mut();
        // SAFETY: a live context; text is allocated by accel.
        check(unsafe { sys::acc_foreign_list(self.raw(), &mut text) })?;
        // SAFETY: accel allocated text.
        Ok(unsafe { take_string(text) })
    }

    /// The folder new kernels are written to, and a note saying why it is
    /// not the one asked for (`""` when it is).
    pub fn kernel_cache(&self) -> Result<(String, String)> {
        let (mut dir, mut note) = (ptr::null_mut(), ptr::null_mut());
        // SAFETY: a live context; both strings are allocated by accel.
        check(unsafe { sys::acc_context_kernel_cache(self.raw(), &mut dir, &mut note) })?;
        // SAFETY: accel allocated both.
        Ok(unsafe { (take_string(dir), take_string(note)) })
    }

    /// Registers the C function `symbol` of the shared library `library`
    /// (`None`: the program itself) as an implementation of the foreign
    /// name `name`, with a signature such as `"f64(f64)"` (see
    /// `acc_register_c_function` in accel.h).
    pub fn register_c_function(
        &self,
        name: &str,
        library: Option<&str>,
        symbol: &str,
        signature: &str,
    ) -> Result<()> {
        let name = c_string("name", name)?;
        let library = library.map(|l| c_string("library", l)).transpose()?;
        let symbol = c_string("symbol", symbol)?;
        let signature = c_string("signature", signature)?;
        // SAFETY: a live context and C strings owned here.
        check(unsafe {
            sys::acc_register_c_function(
                self.raw(),
                name.as_ptr(),
                library.as_ref().map_or(ptr::null(), |l| l.as_ptr()),
                symbol.as_ptr(),
                signature.as_ptr(),
            )
        })
    }
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context").field("backend", &self.backend()).finish()
    }
}
