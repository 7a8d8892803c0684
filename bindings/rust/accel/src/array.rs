//! Arrays crossing the ABI: [`ArrayView`] (inputs borrowed from Rust
//! slices), [`ArrayViewMut`] (outputs written into Rust slices) and
//! [`Array`] (outputs accel allocated, owned until `Drop`, no copy).
use std::fmt;
use std::marker::PhantomData;
use std::os::raw::c_void;
use std::ptr;

use accel_sys as sys;

use crate::elem::{elem_name, type_name, Elem, Scalar};
use crate::error::{Error, Result};

const MAX_RANK: usize = sys::ACC_MAX_RANK as usize;
const MAX_LEAVES: usize = sys::ACC_MAX_COMPONENTS as usize;

/// The number of elements of `shape`, or an error when the rank or the
/// product is too large.
fn elements(shape: &[usize]) -> Result<usize> {
    if shape.len() > MAX_RANK {
        return Err(Error::Shape(format!(
            "an array has at most {MAX_RANK} dimensions, this shape has {}",
            shape.len()
        )));
    }
    shape
        .iter()
        .try_fold(1usize, |n, &e| n.checked_mul(e))
        .filter(|&n| i64::try_from(n).is_ok())
        .ok_or_else(|| Error::Shape(format!("the shape {shape:?} has too many elements")))
}

fn check_len(shape: &[usize], len: Option<usize>, leaves: usize) -> Result<()> {
    let n = elements(shape)?;
    match len {
        None => Err(Error::Shape("the slices of the tuple's components differ in length".into())),
        Some(l) if l != n && leaves > 0 => Err(Error::Shape(format!(
            "the shape {shape:?} has {n} elements, the data has {l}"
        ))),
        Some(_) => Ok(()),
    }
}

/// The parts of a host descriptor: rank, extents and one pointer per leaf.
#[derive(Clone, Copy)]
struct Layout {
    rank: usize,
    shape: [usize; MAX_RANK],
    ptrs: [*mut c_void; MAX_LEAVES],
}

impl Layout {
    fn new(shape: &[usize]) -> Layout {
        let mut s = [0; MAX_RANK];
        s[..shape.len()].copy_from_slice(shape);
        Layout { rank: shape.len(), shape: s, ptrs: [ptr::null_mut(); MAX_LEAVES] }
    }

    /// A borrowed host descriptor of type `t`.
    fn descriptor(&self, t: *const sys::acc_type) -> sys::acc_array {
        // SAFETY: an all-zero acc_array is a valid empty descriptor.
        let mut d: sys::acc_array = unsafe { std::mem::zeroed() };
        d.struct_size = std::mem::size_of::<sys::acc_array>();
        d.type_ = t;
        d.rank = self.rank as i32;
        for i in 0..self.rank {
            d.extents[i] = self.shape[i] as i64;
        }
        d.data = self.ptrs;
        d.memory = sys::ACC_MEMORY_HOST;
        d.ownership = sys::ACC_OWNERSHIP_BORROWED;
        d
    }
}

/// The type to give accel for a value of Rust type `E` where the program
/// expects `want`: `want` itself when they agree; else a type of `E` that
/// accel can compare (a scalar or an index), so that the run fails with
/// accel's own message; else an error naming both.
pub(crate) fn pick_type<E: Elem>(
    want: *const sys::acc_type,
    what: &str,
    index: usize,
) -> Result<*const sys::acc_type> {
    if crate::elem::matches::<E>(want) {
        return Ok(want);
    }
    let own = crate::elem::ty::<E>(ptr::null_mut());
    if !own.is_null() {
        return Ok(own);
    }
    Err(Error::Type(format!(
        "{what} {index} has element type {}, the program's is {}",
        elem_name::<E>(),
        type_name(want)
    )))
}

/// An input borrowed from Rust slices: a shape and one slice per scalar
/// leaf of `E` (a `&[f32]` for `f32`, a `(&[f32], &[i32])` for
/// `(f32, i32)`), for the lifetime `'a` of the slices.
///
/// A run cannot outlive the slices it reads (see [`crate::Exec::submit`]).
#[derive(Clone, Copy)]
pub struct ArrayView<'a, E: Elem> {
    layout: Layout,
    _data: PhantomData<E::Slices<'a>>,
}

// SAFETY: the view only reads shared slices of Sync elements.
unsafe impl<E: Elem> Send for ArrayView<'_, E> {}
// SAFETY: as above.
unsafe impl<E: Elem> Sync for ArrayView<'_, E> {}

impl<'a, E: Elem> ArrayView<'a, E> {
    /// A view of `data` with shape `shape` (extents outermost first,
    /// row-major): [`Error::Shape`] when the rank exceeds 8 or the slices'
    /// lengths are not the number of elements of the shape.
    pub fn new(shape: &[usize], data: E::Slices<'a>) -> Result<Self> {
        elements(shape)?;
        let mut layout = Layout::new(shape);
        let len = E::slice_ptrs(data, &mut layout.ptrs[..E::LEAVES]);
        check_len(shape, len, E::LEAVES)?;
        Ok(ArrayView { layout, _data: PhantomData })
    }

    /// The extents, outermost first.
    pub fn shape(&self) -> &[usize] {
        &self.layout.shape[..self.layout.rank]
    }

    pub(crate) fn descriptor(&self, want: *const sys::acc_type, index: usize) -> Result<sys::acc_array> {
        Ok(self.layout.descriptor(pick_type::<E>(want, "input", index)?))
    }
}

impl<'a, T: Scalar> ArrayView<'a, T> {
    /// `data` seen with shape `shape` (row-major): [`ArrayView::new`] for
    /// a scalar element type, where the element type follows from `data`.
    pub fn from_shape(shape: &[usize], data: &'a [T]) -> Result<Self> {
        elements(shape)?;
        let mut layout = Layout::new(shape);
        layout.ptrs[0] = data.as_ptr() as *mut c_void;
        check_len(shape, Some(data.len()), 1)?;
        Ok(ArrayView { layout, _data: PhantomData })
    }

    /// A vector viewing `data`.
    pub fn vector(data: &'a [T]) -> Self {
        let mut layout = Layout::new(&[data.len()]);
        layout.ptrs[0] = data.as_ptr() as *mut c_void;
        ArrayView { layout, _data: PhantomData }
    }

    /// A Scalar (rank 0) viewing `x`.
    pub fn scalar(x: &'a T) -> Self {
        let mut layout = Layout::new(&[]);
        layout.ptrs[0] = x as *const T as *mut c_void;
        ArrayView { layout, _data: PhantomData }
    }
}

impl<'a, T: Scalar> From<&'a [T]> for ArrayView<'a, T> {
    fn from(data: &'a [T]) -> Self {
        ArrayView::vector(data)
    }
}

impl<E: Elem> fmt::Debug for ArrayView<'_, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ArrayView<{}>{:?}", elem_name::<E>(), self.shape())
    }
}

/// An output written into Rust slices: a shape and one mutable slice per
/// leaf of `E`.  The shape must be the result's
/// ([`Error::Shape`] otherwise); accel's kernel writes the slices directly
/// when they overlap no input.
pub struct ArrayViewMut<'a, E: Elem> {
    layout: Layout,
    _data: PhantomData<E::SlicesMut<'a>>,
}

// SAFETY: the view holds unique borrows of Send elements.
unsafe impl<E: Elem> Send for ArrayViewMut<'_, E> {}

impl<'a, E: Elem> ArrayViewMut<'a, E> {
    /// A view of `data` with shape `shape` (see [`ArrayView::new`]).
    pub fn new(shape: &[usize], mut data: E::SlicesMut<'a>) -> Result<Self> {
        elements(shape)?;
        let mut layout = Layout::new(shape);
        let len = E::slice_mut_ptrs(&mut data, &mut layout.ptrs[..E::LEAVES]);
        check_len(shape, len, E::LEAVES)?;
        Ok(ArrayViewMut { layout, _data: PhantomData })
    }

    pub(crate) fn descriptor(&mut self, want: *const sys::acc_type, index: usize) -> Result<sys::acc_array> {
        Ok(self.layout.descriptor(pick_type::<E>(want, "output", index)?))
    }
}

impl<'a, T: Scalar> ArrayViewMut<'a, T> {
    /// `data` written with shape `shape` (row-major).
    pub fn from_shape(shape: &[usize], data: &'a mut [T]) -> Result<Self> {
        elements(shape)?;
        let mut layout = Layout::new(shape);
        layout.ptrs[0] = data.as_mut_ptr() as *mut c_void;
        check_len(shape, Some(data.len()), 1)?;
        Ok(ArrayViewMut { layout, _data: PhantomData })
    }

    /// A vector writing into `data`.
    pub fn vector(data: &'a mut [T]) -> Self {
        let mut layout = Layout::new(&[data.len()]);
        layout.ptrs[0] = data.as_mut_ptr() as *mut c_void;
        ArrayViewMut { layout, _data: PhantomData }
    }
}

/// An array accel allocated (an output of [`crate::Program::run`]): owned,
/// read in place (no copy), and released with `acc_array_release` in
/// `Drop`.  It may outlive its program and its context.
///
/// For a scalar element type it dereferences to a slice (`&out[..]`,
/// `out[3]`, `out.iter()`); for tuples, [`Array::leaves`] gives one slice
/// per component and [`Array::get`] one element.
///
/// **Threads:** `Send` and `Sync`: the memory belongs to no context and
/// may be read from, and released on, any thread.
pub struct Array<E: Elem> {
    desc: sys::acc_array,
    shape: [usize; MAX_RANK],
    len: usize,
    _e: PhantomData<E>,
}

// SAFETY: library-owned host memory, released by acc_array_release from
// any thread (docs/ABI.md, "Ownership").
unsafe impl<E: Elem> Send for Array<E> {}
// SAFETY: shared access only reads.
unsafe impl<E: Elem> Sync for Array<E> {}

impl<E: Elem> Array<E> {
    /// Takes a library-owned output descriptor whose type is `E`.
    pub(crate) fn from_desc(desc: sys::acc_array) -> Array<E> {
        let rank = (desc.rank.max(0) as usize).min(MAX_RANK);
        let mut shape = [0; MAX_RANK];
        for (s, &e) in shape.iter_mut().zip(&desc.extents[..rank]) {
            *s = e.max(0) as usize;
        }
        let len = shape[..rank].iter().product();
        Array { desc, shape, len, _e: PhantomData }
    }

    /// The extents, outermost first.
    pub fn shape(&self) -> &[usize] {
        &self.shape[..self.desc.rank as usize]
    }
    /// The rank.
    pub fn rank(&self) -> usize {
        self.desc.rank as usize
    }
    /// The number of elements.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether it has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// One slice per scalar leaf of `E`, read in place.
    pub fn leaves(&self) -> E::Slices<'_> {
        // SAFETY: accel allocated len elements per leaf, alive until Drop.
        unsafe { E::slices(&self.desc.data[..E::LEAVES], self.len) }
    }
    /// Element `i` in row-major order; panics when out of range.
    pub fn get(&self, i: usize) -> E {
        assert!(i < self.len, "index {i} out of range for an array of {} elements", self.len);
        // SAFETY: i is in range of every leaf.
        unsafe { E::read(&self.desc.data[..E::LEAVES], i) }
    }
    /// The elements in row-major order, copied.
    pub fn to_vec(&self) -> Vec<E> {
        (0..self.len).map(|i| self.get(i)).collect()
    }
    /// A view of the array, to give it to another run.
    pub fn view(&self) -> ArrayView<'_, E> {
        let mut layout = Layout::new(self.shape());
        layout.ptrs = self.desc.data;
        ArrayView { layout, _data: PhantomData }
    }
}

impl<T: Scalar> std::ops::Deref for Array<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        if self.len == 0 {
            return &[];
        }
        // SAFETY: accel allocated len elements, alive until Drop.
        unsafe { std::slice::from_raw_parts(self.desc.data[0] as *const T, self.len) }
    }
}

impl<E: Elem> Drop for Array<E> {
    fn drop(&mut self) {
        // SAFETY: a library-owned descriptor, released once.
        unsafe { sys::acc_array_release(&mut self.desc) }
    }
}

impl<E: Elem> fmt::Debug for Array<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Array<{}>{:?} ", elem_name::<E>(), self.shape())?;
        f.debug_list().entries((0..self.len.min(16)).map(|i| self.get(i))).finish()
    }
}
