//! A compact binary encoding for the syntax tree and the shell's state. A subshell, a
//! pipeline stage or a `$( )` runs in a fresh process that receives what to run and the
//! state to run it in as bytes; this is that format. Integers are LEB128 varints (zigzag for
//! signed ones); strings and sequences are length-prefixed.
//!
//! Decoding never panics: malformed input is a [`DecodeError`].

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecodeError;

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("malformed serialized shell data")
    }
}

#[derive(Default)]
pub struct Writer {
    pub buf: Vec<u8>,
}

pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl Writer {
    pub fn new() -> Writer {
        Writer::default()
    }

    pub fn u8(&mut self, value: u8) {
        self.buf.push(value);
    }

    pub fn varint(&mut self, mut value: u64) {
        loop {
            let byte = (value & 0x7f) as u8;
            value >>= 7;
            if value == 0 {
                self.buf.push(byte);
                return;
            }
            self.buf.push(byte | 0x80);
        }
    }

    pub fn bytes(&mut self, bytes: &[u8]) {
        self.varint(bytes.len() as u64);
        self.buf.extend_from_slice(bytes);
    }

    pub fn put<T: Codec>(&mut self, value: &T) {
        value.encode(self);
    }
}

impl<'a> Reader<'a> {
    pub fn new(buf: &'a [u8]) -> Reader<'a> {
        Reader { buf, pos: 0 }
    }

    pub fn at_end(&self) -> bool {
        self.pos >= self.buf.len()
    }

    pub fn u8(&mut self) -> Result<u8, DecodeError> {
        let byte = *self.buf.get(self.pos).ok_or(DecodeError)?;
        self.pos += 1;
        Ok(byte)
    }

    pub fn varint(&mut self) -> Result<u64, DecodeError> {
        let mut value = 0u64;
        let mut shift = 0;
        loop {
            let byte = self.u8()?;
            if shift >= 64 {
                return Err(DecodeError);
            }
            value |= ((byte & 0x7f) as u64) << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
            shift += 7;
        }
    }

    pub fn bytes(&mut self) -> Result<&'a [u8], DecodeError> {
        let len = self.varint()? as usize;
        let end = self.pos.checked_add(len).ok_or(DecodeError)?;
        let slice = self.buf.get(self.pos..end).ok_or(DecodeError)?;
        self.pos = end;
        Ok(slice)
    }

    /// A length that must fit in the remaining input (each element takes at least a
    /// byte), so a corrupt length cannot make a huge allocation.
    pub fn length(&mut self) -> Result<usize, DecodeError> {
        let len = self.varint()? as usize;
        if len > self.buf.len() - self.pos {
            return Err(DecodeError);
        }
        Ok(len)
    }

    pub fn get<T: Codec>(&mut self) -> Result<T, DecodeError> {
        T::decode(self)
    }
}

pub trait Codec: Sized {
    fn encode(&self, w: &mut Writer);
    fn decode(r: &mut Reader) -> Result<Self, DecodeError>;
}

impl Codec for u8 {
    fn encode(&self, w: &mut Writer) {
        w.u8(*self);
    }
    fn decode(r: &mut Reader) -> Result<Self, DecodeError> {
        r.u8()
    }
}

impl Codec for bool {
    fn encode(&self, w: &mut Writer) {
        w.u8(*self as u8);
    }
    fn decode(r: &mut Reader) -> Result<Self, DecodeError> {
        Ok(r.u8()? != 0)
    }
}

/// The unsigned integers narrower than the varint: a value that does not fit is corrupt.
macro_rules! narrow_unsigned_codec {
    ($($t:ty),*) => {$(
        impl Codec for $t {
            fn encode(&self, w: &mut Writer) {
                w.varint(*self as u64);
            }
            fn decode(r: &mut Reader) -> Result<Self, DecodeError> {
                <$t>::try_from(r.varint()?).map_err(|_| DecodeError)
            }
        }
    )*};
}

narrow_unsigned_codec!(u16, u32, usize);

impl Codec for u64 {
    fn encode(&self, w: &mut Writer) {
        w.varint(*self);
    }
    fn decode(r: &mut Reader) -> Result<Self, DecodeError> {
        r.varint()
    }
}

impl Codec for i64 {
    fn encode(&self, w: &mut Writer) {
        w.varint(((*self << 1) ^ (*self >> 63)) as u64);
    }
    fn decode(r: &mut Reader) -> Result<Self, DecodeError> {
        let raw = r.varint()?;
        Ok(((raw >> 1) as i64) ^ -((raw & 1) as i64))
    }
}

impl Codec for i32 {
    fn encode(&self, w: &mut Writer) {
        (*self as i64).encode(w);
    }
    fn decode(r: &mut Reader) -> Result<Self, DecodeError> {
        i32::try_from(i64::decode(r)?).map_err(|_| DecodeError)
    }
}

impl Codec for char {
    fn encode(&self, w: &mut Writer) {
        w.varint(*self as u64);
    }
    fn decode(r: &mut Reader) -> Result<Self, DecodeError> {
        char::from_u32(u32::decode(r)?).ok_or(DecodeError)
    }
}

impl Codec for String {
    fn encode(&self, w: &mut Writer) {
        w.bytes(self.as_bytes());
    }
    fn decode(r: &mut Reader) -> Result<Self, DecodeError> {
        String::from_utf8(r.bytes()?.to_vec()).map_err(|_| DecodeError)
    }
}

impl<T: Codec> Codec for Vec<T> {
    fn encode(&self, w: &mut Writer) {
        w.varint(self.len() as u64);
        for item in self {
            item.encode(w);
        }
    }
    fn decode(r: &mut Reader) -> Result<Self, DecodeError> {
        let len = r.length()?;
        let mut out = Vec::with_capacity(len);
        for _ in 0..len {
            out.push(T::decode(r)?);
        }
        Ok(out)
    }
}

impl<T: Codec> Codec for Option<T> {
    fn encode(&self, w: &mut Writer) {
        match self {
            None => w.u8(0),
            Some(value) => {
                w.u8(1);
                value.encode(w);
            }
        }
    }
    fn decode(r: &mut Reader) -> Result<Self, DecodeError> {
        match r.u8()? {
            0 => Ok(None),
            1 => Ok(Some(T::decode(r)?)),
            _ => Err(DecodeError),
        }
    }
}

impl<T: Codec> Codec for Box<T> {
    fn encode(&self, w: &mut Writer) {
        (**self).encode(w);
    }
    fn decode(r: &mut Reader) -> Result<Self, DecodeError> {
        Ok(Box::new(T::decode(r)?))
    }
}

impl<T: Codec> Codec for Rc<T> {
    fn encode(&self, w: &mut Writer) {
        (**self).encode(w);
    }
    fn decode(r: &mut Reader) -> Result<Self, DecodeError> {
        Ok(Rc::new(T::decode(r)?))
    }
}

impl<T: Codec> Codec for RefCell<T> {
    fn encode(&self, w: &mut Writer) {
        self.borrow().encode(w);
    }
    fn decode(r: &mut Reader) -> Result<Self, DecodeError> {
        Ok(RefCell::new(T::decode(r)?))
    }
}

impl<A: Codec, B: Codec> Codec for (A, B) {
    fn encode(&self, w: &mut Writer) {
        self.0.encode(w);
        self.1.encode(w);
    }
    fn decode(r: &mut Reader) -> Result<Self, DecodeError> {
        Ok((A::decode(r)?, B::decode(r)?))
    }
}

impl<A: Codec, B: Codec, C: Codec> Codec for (A, B, C) {
    fn encode(&self, w: &mut Writer) {
        self.0.encode(w);
        self.1.encode(w);
        self.2.encode(w);
    }
    fn decode(r: &mut Reader) -> Result<Self, DecodeError> {
        Ok((A::decode(r)?, B::decode(r)?, C::decode(r)?))
    }
}

impl<K: Codec + Ord, V: Codec> Codec for BTreeMap<K, V> {
    fn encode(&self, w: &mut Writer) {
        w.varint(self.len() as u64);
        for (key, value) in self {
            key.encode(w);
            value.encode(w);
        }
    }
    fn decode(r: &mut Reader) -> Result<Self, DecodeError> {
        let len = r.length()?;
        let mut out = BTreeMap::new();
        for _ in 0..len {
            let key = K::decode(r)?;
            out.insert(key, V::decode(r)?);
        }
        Ok(out)
    }
}

/// Implements [`Codec`] for a struct, field by field in the order given.
#[macro_export]
macro_rules! codec_struct {
    ($ty:ident { $($field:ident),* $(,)? }) => {
        impl $crate::codec::Codec for $ty {
            fn encode(&self, w: &mut $crate::codec::Writer) {
                $( $crate::codec::Codec::encode(&self.$field, w); )*
            }
            fn decode(r: &mut $crate::codec::Reader) -> Result<Self, $crate::codec::DecodeError> {
                Ok($ty { $( $field: $crate::codec::Codec::decode(r)?, )* })
            }
        }
    };
}

/// Implements [`Codec`] for an enum: a tag byte per variant, then its fields.
#[macro_export]
macro_rules! codec_enum {
    ($ty:ident { $( $tag:literal => $variant:ident $( ( $($tf:ident),* ) )? $( { $($sf:ident),* } )? ),* $(,)? }) => {
        impl $crate::codec::Codec for $ty {
            #[allow(unused_variables)]
            fn encode(&self, w: &mut $crate::codec::Writer) {
                match self {
                    $( $ty::$variant $( ( $($tf),* ) )? $( { $($sf),* } )? => {
                        w.u8($tag);
                        $( $( $crate::codec::Codec::encode($tf, w); )* )?
                        $( $( $crate::codec::Codec::encode($sf, w); )* )?
                    } )*
                }
            }
            fn decode(r: &mut $crate::codec::Reader) -> Result<Self, $crate::codec::DecodeError> {
                match r.u8()? {
                    $( $tag => Ok($ty::$variant
                        $( ( $( { let $tf = $crate::codec::Codec::decode(r)?; $tf } ),* ) )?
                        $( { $( $sf: $crate::codec::Codec::decode(r)? ),* } )?
                    ), )*
                    _ => Err($crate::codec::DecodeError),
                }
            }
        }
    };
}

/// Encodes a value to bytes.
pub fn to_bytes<T: Codec>(value: &T) -> Vec<u8> {
    let mut w = Writer::new();
    value.encode(&mut w);
    w.buf
}

/// Decodes a value that must use all of `bytes`.
pub fn from_bytes<T: Codec>(bytes: &[u8]) -> Result<T, DecodeError> {
    let mut r = Reader::new(bytes);
    let value = T::decode(&mut r)?;
    if !r.at_end() {
        return Err(DecodeError);
    }
    Ok(value)
}
