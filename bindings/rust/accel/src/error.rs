//! `accel::Error`: one variant per status of accel's C ABI, each with
//! accel's own message (docs/ABI.md, "Errors").
use std::ffi::CStr;
use std::fmt;

use accel_sys as sys;

/// What went wrong, by status (the numbers of `acc_status`, grouped by
/// category as docs/ABI.md lists them), with accel's message: words a user
/// can act on, such as `"input 1 has rank 1, the program expects rank 2"`.
///
/// Every fallible function of this crate returns [`Result`].  After an
/// error every handle stays usable.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// 100: the call itself is wrong (a bad count, a bad option).
    InvalidArgument(String),
    /// 101: a freed or never-created handle (cannot happen through this crate).
    InvalidHandle(String),
    /// 200: element types or sorts disagree.
    Type(String),
    /// 201: ranks or extents disagree.
    Shape(String),
    /// 300: host memory ran out.
    OutOfHostMemory(String),
    /// 301: the device's memory ran out.
    OutOfDeviceMemory(String),
    /// 400: a valid request this build or backend cannot do.
    Unsupported(String),
    /// 401: a named thing (entry point, plugin, symbol) is absent.
    NotFound(String),
    /// 500: code generation or kernel compilation failed.
    Compile(String),
    /// 501: the device or its driver reported an error.
    Device(String),
    /// 502: a plugin failed to load or to run.
    Plugin(String),
    /// 503: a plugin or artifact built for another ABI.
    AbiMismatch(String),
    /// 600: a text program does not parse (the message starts `LINE:COLUMN:`).
    Parse(String),
    /// 700: the program failed while running (an index out of range, ...).
    Runtime(String),
    /// 701: the run was cancelled ([`crate::Canceller::cancel`]).
    Cancelled(String),
    /// 702: the run's deadline passed.
    Timeout(String),
    /// 900: a bug in accel; please report it.
    Internal(String),
    /// A status this crate does not know (from a newer library).
    Other {
        /// The status number.
        status: u32,
        /// accel's message.
        message: String,
    },
}

/// `std::result::Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The category of an error: the hundreds of its status number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Category {
    /// 1xx: the call itself is wrong.
    Call,
    /// 2xx: the program or the data does not fit.
    Data,
    /// 3xx: resources ran out.
    Resources,
    /// 4xx: not available here.
    Availability,
    /// 5xx: toolchains, devices, plugins.
    Toolchain,
    /// 6xx: text.
    Text,
    /// 7xx: a program failed while running.
    Run,
    /// 9xx: a bug in accel.
    Internal,
    /// Any other number.
    Unknown,
}

impl Error {
    /// The error of a failed call with status `status` and message `message`.
    pub fn from_status(status: u32, message: impl Into<String>) -> Error {
        let m = message.into();
        match status {
            sys::ACC_ERR_INVALID_ARGUMENT => Error::InvalidArgument(m),
            sys::ACC_ERR_INVALID_HANDLE => Error::InvalidHandle(m),
            sys::ACC_ERR_TYPE => Error::Type(m),
            sys::ACC_ERR_SHAPE => Error::Shape(m),
            sys::ACC_ERR_OUT_OF_HOST_MEMORY => Error::OutOfHostMemory(m),
            sys::ACC_ERR_OUT_OF_DEVICE_MEMORY => Error::OutOfDeviceMemory(m),
            sys::ACC_ERR_UNSUPPORTED => Error::Unsupported(m),
            sys::ACC_ERR_NOT_FOUND => Error::NotFound(m),
            sys::ACC_ERR_COMPILE => Error::Compile(m),
            sys::ACC_ERR_DEVICE => Error::Device(m),
            sys::ACC_ERR_PLUGIN => Error::Plugin(m),
            sys::ACC_ERR_ABI_MISMATCH => Error::AbiMismatch(m),
            sys::ACC_ERR_PARSE => Error::Parse(m),
            sys::ACC_ERR_RUNTIME => Error::Runtime(m),
            sys::ACC_ERR_CANCELLED => Error::Cancelled(m),
            sys::ACC_ERR_TIMEOUT => Error::Timeout(m),
            sys::ACC_ERR_INTERNAL => Error::Internal(m),
            status => Error::Other { status, message: m },
        }
    }

    /// The status number (`acc_status`): 100, 200, 201, ...
    pub fn status(&self) -> u32 {
        match self {
            Error::InvalidArgument(_) => sys::ACC_ERR_INVALID_ARGUMENT,
            Error::InvalidHandle(_) => sys::ACC_ERR_INVALID_HANDLE,
            Error::Type(_) => sys::ACC_ERR_TYPE,
            Error::Shape(_) => sys::ACC_ERR_SHAPE,
            Error::OutOfHostMemory(_) => sys::ACC_ERR_OUT_OF_HOST_MEMORY,
            Error::OutOfDeviceMemory(_) => sys::ACC_ERR_OUT_OF_DEVICE_MEMORY,
            Error::Unsupported(_) => sys::ACC_ERR_UNSUPPORTED,
            Error::NotFound(_) => sys::ACC_ERR_NOT_FOUND,
            Error::Compile(_) => sys::ACC_ERR_COMPILE,
            Error::Device(_) => sys::ACC_ERR_DEVICE,
            Error::Plugin(_) => sys::ACC_ERR_PLUGIN,
            Error::AbiMismatch(_) => sys::ACC_ERR_ABI_MISMATCH,
            Error::Parse(_) => sys::ACC_ERR_PARSE,
            Error::Runtime(_) => sys::ACC_ERR_RUNTIME,
            Error::Cancelled(_) => sys::ACC_ERR_CANCELLED,
            Error::Timeout(_) => sys::ACC_ERR_TIMEOUT,
            Error::Internal(_) => sys::ACC_ERR_INTERNAL,
            Error::Other { status, .. } => *status,
        }
    }

    /// accel's message.
    pub fn message(&self) -> &str {
        match self {
            Error::InvalidArgument(m)
            | Error::InvalidHandle(m)
            | Error::Type(m)
            | Error::Shape(m)
            | Error::OutOfHostMemory(m)
            | Error::OutOfDeviceMemory(m)
            | Error::Unsupported(m)
            | Error::NotFound(m)
            | Error::Compile(m)
            | Error::Device(m)
            | Error::Plugin(m)
            | Error::AbiMismatch(m)
            | Error::Parse(m)
            | Error::Runtime(m)
            | Error::Cancelled(m)
            | Error::Timeout(m)
            | Error::Internal(m) => m,
            Error::Other { message, .. } => message,
        }
    }

    /// The category of the status.
    pub fn category(&self) -> Category {
        match self.status() / 100 {
            1 => Category::Call,
            2 => Category::Data,
            3 => Category::Resources,
            4 => Category::Availability,
            5 => Category::Toolchain,
            6 => Category::Text,
            7 => Category::Run,
            9 => Category::Internal,
            _ => Category::Unknown,
        }
    }

    /// The status's name as accel spells it (`"ACC_ERR_SHAPE"`).
    pub fn status_name(&self) -> &'static str {
        // SAFETY: acc_status_string returns a static NUL-terminated string
        // for every number.
        unsafe { static_str(sys::acc_status_string(self.status())) }
    }

    /// The error of the call that just failed with `status` on this thread,
    /// with the thread's last message (`acc_last_error`).
    pub(crate) fn last(status: sys::acc_status) -> Error {
        // SAFETY: acc_last_error returns the calling thread's message, valid
        // until its next failing call; it is copied at once.
        let message = unsafe { static_str(sys::acc_last_error()) };
        Error::from_status(status, message)
    }
}

/// Ok for ACC_OK, else the thread's last error.
pub(crate) fn check(status: sys::acc_status) -> Result<()> {
    if status == sys::ACC_OK {
        Ok(())
    } else {
        Err(Error::last(status))
    }
}

/// A string accel owns and keeps (static, or for the lifetime of a handle
/// that outlives the borrow); "" for NULL.
///
/// # Safety
/// `p` is NULL or a NUL-terminated string valid for `'a`.
pub(crate) unsafe fn static_str<'a>(p: *const std::os::raw::c_char) -> &'a str {
    if p.is_null() {
        return "";
    }
    // SAFETY: the caller's promise.
    unsafe { CStr::from_ptr(p) }.to_str().unwrap_or("(message is not UTF-8)")
}

/// Takes a string accel allocated for the caller, releasing it with
/// acc_free.
///
/// # Safety
/// `p` is NULL or a NUL-terminated string allocated by accel.
pub(crate) unsafe fn take_string(p: *mut std::os::raw::c_char) -> String {
    // SAFETY: the caller's promise.
    let s = unsafe { static_str(p) }.to_owned();
    // SAFETY: accel allocated it; acc_free is NULL-safe.
    unsafe { sys::acc_free(p.cast()) };
    s
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.status_name(), self.message())
    }
}

impl std::error::Error for Error {}
