//! AMDGPU code objects: 64-bit little-endian ELF with `e_machine` EM_AMDGPU (224). Kernels are
//! the `<name>.kd` symbols (STT_OBJECT) of the symbol tables, each pointing at its kernel
//! descriptor; other defined data objects are globals. Every offset read is bounds-checked:
//! a malformed image is `hipErrorInvalidImage`, never a crash.

use super::kernel_descriptor;
use super::{CodeObjectContents, GlobalSymbol, KernelSymbol};
use crate::error::{HipError, HIP_ERROR_INVALID_IMAGE};
use std::collections::BTreeSet;

pub const MAGIC: &[u8; 4] = b"\x7fELF";
const EM_AMDGPU: u16 = 224;
const HEADER_SIZE: usize = 64;
const SECTION_HEADER_SIZE: usize = 64;
const SYMBOL_SIZE: usize = 24;
const SHT_SYMTAB: u32 = 2;
const SHT_NOBITS: u32 = 8;
const SHT_DYNSYM: u32 = 11;
const STT_OBJECT: u8 = 1;
const SHN_UNDEF: u16 = 0;
/// No code object is larger than this; a header claiming more is malformed.
const MAX_IMAGE: u64 = 1 << 32;
/// `EF_AMDGPU_MACH` is the low byte of `e_flags`.
const EF_AMDGPU_MACH: u32 = 0xff;

fn invalid() -> HipError {
    HipError(HIP_ERROR_INVALID_IMAGE)
}

fn range(bytes: &[u8], offset: u64, len: u64) -> Result<&[u8], HipError> {
    let start = usize::try_from(offset).map_err(|_| invalid())?;
    let len = usize::try_from(len).map_err(|_| invalid())?;
    let end = start.checked_add(len).ok_or_else(invalid)?;
    bytes.get(start..end).ok_or_else(invalid)
}

fn u16_at(d: &[u8], at: usize) -> Result<u16, HipError> {
    let b = d.get(at..at + 2).ok_or_else(invalid)?;
    Ok(u16::from_le_bytes([b[0], b[1]]))
}

fn u32_at(d: &[u8], at: usize) -> Result<u32, HipError> {
    let b = d.get(at..at + 4).ok_or_else(invalid)?;
    Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

fn u64_at(d: &[u8], at: usize) -> Result<u64, HipError> {
    let b = d.get(at..at + 8).ok_or_else(invalid)?;
    let mut a = [0u8; 8];
    a.copy_from_slice(b);
    Ok(u64::from_le_bytes(a))
}

struct Header {
    flags: u32,
    shoff: u64,
    shnum: u64,
    phoff: u64,
    phnum: u64,
    phentsize: u64,
}

fn header(h: &[u8]) -> Result<Header, HipError> {
    if h.len() < HEADER_SIZE || !h.starts_with(MAGIC) {
        return Err(invalid());
    }
    // ELFCLASS64, ELFDATA2LSB, EM_AMDGPU.
    if h[4] != 2 || h[5] != 1 || u16_at(h, 18)? != EM_AMDGPU {
        return Err(invalid());
    }
    let shentsize = u16_at(h, 58)?;
    let shnum = u64::from(u16_at(h, 60)?);
    if shnum > 0 && usize::from(shentsize) != SECTION_HEADER_SIZE {
        return Err(invalid());
    }
    Ok(Header {
        flags: u32_at(h, 48)?,
        shoff: u64_at(h, 40)?,
        shnum,
        phoff: u64_at(h, 32)?,
        phnum: u64::from(u16_at(h, 56)?),
        phentsize: u64::from(u16_at(h, 54)?),
    })
}

struct Section {
    kind: u32,
    addr: u64,
    offset: u64,
    size: u64,
    link: u32,
    entsize: u64,
}

fn section(table: &[u8], index: usize) -> Result<Section, HipError> {
    let s = table
        .get(index * SECTION_HEADER_SIZE..(index + 1) * SECTION_HEADER_SIZE)
        .ok_or_else(invalid)?;
    Ok(Section {
        kind: u32_at(s, 4)?,
        addr: u64_at(s, 16)?,
        offset: u64_at(s, 24)?,
        size: u64_at(s, 32)?,
        link: u32_at(s, 40)?,
        entsize: u64_at(s, 56)?,
    })
}

fn end_of(offset: u64, count: u64, size: u64) -> Result<u64, HipError> {
    count
        .checked_mul(size)
        .and_then(|n| n.checked_add(offset))
        .filter(|end| *end <= MAX_IMAGE)
        .ok_or_else(invalid)
}

/// The image's length: the furthest end of its headers, tables and section contents.
///
/// # Safety
/// `image` must point to a complete ELF image whose headers are truthful about its layout.
pub unsafe fn extent_in_memory(image: *const u8) -> Result<usize, HipError> {
    // SAFETY: an ELF image is at least its 64-byte header (caller contract).
    let h = header(unsafe { std::slice::from_raw_parts(image, HEADER_SIZE) })?;
    let sht_end = end_of(h.shoff, h.shnum, SECTION_HEADER_SIZE as u64)?;
    let mut end = sht_end
        .max(end_of(h.phoff, h.phnum, h.phentsize)?)
        .max(HEADER_SIZE as u64);
    if h.shnum > 0 {
        let table_len = usize::try_from(h.shnum).map_err(|_| invalid())? * SECTION_HEADER_SIZE;
        let shoff = usize::try_from(h.shoff).map_err(|_| invalid())?;
        // SAFETY: the section header table lies inside the image (caller contract).
        let table = unsafe { std::slice::from_raw_parts(image.add(shoff), table_len) };
        for i in 0..h.shnum as usize {
            let s = section(table, i)?;
            if s.kind != SHT_NOBITS {
                end = end.max(end_of(s.offset, 1, s.size)?);
            }
        }
    }
    usize::try_from(end).map_err(|_| invalid())
}

/// Kernels (from `.kd` symbols, with their descriptors) and data globals of a complete image.
pub fn parse(bytes: &[u8]) -> Result<CodeObjectContents, HipError> {
    let h = header(bytes)?;
    let mach = h.flags & EF_AMDGPU_MACH;
    let table = range(bytes, h.shoff, h.shnum * SECTION_HEADER_SIZE as u64)?;
    let sections = (0..h.shnum as usize)
        .map(|i| section(table, i))
        .collect::<Result<Vec<_>, _>>()?;
    // Where a symbol's virtual address lives in the file.
    let file_offset = |addr: u64, len: u64| -> Result<u64, HipError> {
        let s = sections
            .iter()
            .find(|s| {
                s.kind != SHT_NOBITS
                    && s.size > 0
                    && addr >= s.addr
                    && addr
                        .checked_add(len)
                        .zip(s.addr.checked_add(s.size))
                        .is_some_and(|(end, section_end)| end <= section_end)
            })
            .ok_or_else(invalid)?;
        s.offset.checked_add(addr - s.addr).ok_or_else(invalid)
    };
    let mut contents = CodeObjectContents::default();
    let mut seen_kernels = BTreeSet::new();
    let mut seen_globals = BTreeSet::new();
    // .symtab and .dynsym both list the kernels of a linked code object: keep each once.
    for symtab in sections
        .iter()
        .filter(|s| matches!(s.kind, SHT_SYMTAB | SHT_DYNSYM))
    {
        if symtab.entsize != SYMBOL_SIZE as u64 {
            return Err(invalid());
        }
        let symbols = range(bytes, symtab.offset, symtab.size)?;
        let strtab = sections.get(symtab.link as usize).ok_or_else(invalid)?;
        let strings = range(bytes, strtab.offset, strtab.size)?;
        for sym in symbols.chunks_exact(SYMBOL_SIZE) {
            let name_at = u32_at(sym, 0)? as usize;
            let kind = sym[4] & 0xf;
            let shndx = u16_at(sym, 6)?;
            let value = u64_at(sym, 8)?;
            let size = u64_at(sym, 16)?;
            if kind != STT_OBJECT || shndx == SHN_UNDEF {
                continue;
            }
            let name_bytes = strings.get(name_at..).ok_or_else(invalid)?;
            let nul = name_bytes
                .iter()
                .position(|b| *b == 0)
                .ok_or_else(invalid)?;
            let name = std::str::from_utf8(&name_bytes[..nul]).map_err(|_| invalid())?;
            if let Some(kernel) = name.strip_suffix(".kd") {
                if !seen_kernels.insert(kernel.to_owned()) {
                    continue;
                }
                let at = file_offset(value, kernel_descriptor::SIZE as u64)?;
                let descriptor = range(bytes, at, kernel_descriptor::SIZE as u64)?;
                contents.kernels.push(KernelSymbol {
                    name: kernel.to_owned(),
                    resources: Some(kernel_descriptor::decode(descriptor, mach)?),
                });
            } else if !name.is_empty() && seen_globals.insert(name.to_owned()) {
                contents.globals.push(GlobalSymbol {
                    name: name.to_owned(),
                    size: usize::try_from(size).map_err(|_| invalid())?,
                });
            }
        }
    }
    if contents.kernels.is_empty() {
        return Err(invalid());
    }
    Ok(contents)
}

/// Builds a small real-shaped AMDGPU ELF (gfx942): a `.rodata` section holding kernel
/// descriptors, a `.symtab` naming them `<kernel>.kd` plus one data global, its `.strtab`,
/// and `.shstrtab`. For tests.
#[cfg(test)]
pub mod build {
    use super::*;

    pub struct TestKernel<'a> {
        pub name: &'a str,
        pub descriptor: [u8; kernel_descriptor::SIZE],
    }

    fn push_section(table: &mut Vec<u8>, fields: [u64; 10]) {
        // name, type (u32 each), flags, addr, offset, size (u64), link, info (u32),
        // addralign, entsize (u64).
        table.extend_from_slice(&(fields[0] as u32).to_le_bytes());
        table.extend_from_slice(&(fields[1] as u32).to_le_bytes());
        for f in &fields[2..6] {
            table.extend_from_slice(&f.to_le_bytes());
        }
        table.extend_from_slice(&(fields[6] as u32).to_le_bytes());
        table.extend_from_slice(&(fields[7] as u32).to_le_bytes());
        table.extend_from_slice(&fields[8].to_le_bytes());
        table.extend_from_slice(&fields[9].to_le_bytes());
    }

    pub fn elf(kernels: &[TestKernel], global: (&str, u64)) -> Vec<u8> {
        const RODATA_ADDR: u64 = 0x1000;
        let mut rodata = Vec::new();
        let mut strtab = vec![0u8];
        let mut symtab = vec![0u8; SYMBOL_SIZE];
        let mut symbol = |strtab: &mut Vec<u8>, name: &str, value: u64, size: u64| {
            let name_at = strtab.len() as u32;
            strtab.extend_from_slice(name.as_bytes());
            strtab.push(0);
            symtab.extend_from_slice(&name_at.to_le_bytes());
            symtab.push((1 << 4) | STT_OBJECT); // STB_GLOBAL, STT_OBJECT
            symtab.push(0);
            symtab.extend_from_slice(&1u16.to_le_bytes()); // .rodata
            symtab.extend_from_slice(&value.to_le_bytes());
            symtab.extend_from_slice(&size.to_le_bytes());
        };
        for k in kernels {
            let value = RODATA_ADDR + rodata.len() as u64;
            rodata.extend_from_slice(&k.descriptor);
            symbol(&mut strtab, &format!("{}.kd", k.name), value, 64);
        }
        let value = RODATA_ADDR + rodata.len() as u64;
        rodata.extend(std::iter::repeat_n(0u8, global.1 as usize));
        symbol(&mut strtab, global.0, value, global.1);
        let shstrtab = b"\0.rodata\0.symtab\0.strtab\0.shstrtab\0".to_vec();

        let mut out = vec![0u8; HEADER_SIZE];
        let rodata_off = out.len() as u64;
        out.extend_from_slice(&rodata);
        let symtab_off = out.len() as u64;
        out.extend_from_slice(&symtab);
        let strtab_off = out.len() as u64;
        out.extend_from_slice(&strtab);
        let shstrtab_off = out.len() as u64;
        out.extend_from_slice(&shstrtab);
        let shoff = out.len() as u64;
        let mut table = Vec::new();
        push_section(&mut table, [0; 10]);
        push_section(
            &mut table,
            [
                1,
                1,
                2,
                RODATA_ADDR,
                rodata_off,
                rodata.len() as u64,
                0,
                0,
                64,
                0,
            ],
        );
        push_section(
            &mut table,
            [
                9,
                SHT_SYMTAB as u64,
                0,
                0,
                symtab_off,
                symtab.len() as u64,
                3,
                1,
                8,
                24,
            ],
        );
        push_section(
            &mut table,
            [17, 3, 0, 0, strtab_off, strtab.len() as u64, 0, 0, 1, 0],
        );
        push_section(
            &mut table,
            [25, 3, 0, 0, shstrtab_off, shstrtab.len() as u64, 0, 0, 1, 0],
        );
        out.extend_from_slice(&table);

        out[0..4].copy_from_slice(MAGIC);
        out[4] = 2; // ELFCLASS64
        out[5] = 1; // little-endian
        out[6] = 1; // EV_CURRENT
        out[7] = 64; // ELFOSABI_AMDGPU_HSA
        out[16..18].copy_from_slice(&3u16.to_le_bytes()); // ET_DYN
        out[18..20].copy_from_slice(&EM_AMDGPU.to_le_bytes());
        out[20..24].copy_from_slice(&1u32.to_le_bytes());
        out[40..48].copy_from_slice(&shoff.to_le_bytes());
        out[48..52].copy_from_slice(&0x34cu32.to_le_bytes()); // gfx942, xnack off, sramecc on
        out[52..54].copy_from_slice(&(HEADER_SIZE as u16).to_le_bytes());
        out[58..60].copy_from_slice(&(SECTION_HEADER_SIZE as u16).to_le_bytes());
        out[60..62].copy_from_slice(&5u16.to_le_bytes());
        out[62..64].copy_from_slice(&4u16.to_le_bytes());
        out
    }
}

#[cfg(test)]
mod tests {
    use super::build::{elf, TestKernel};
    use super::*;
    use proptest::prelude::*;

    fn sample() -> Vec<u8> {
        elf(
            &[
                TestKernel {
                    name: "gemm_fusion_dot_general_1",
                    descriptor: kernel_descriptor::encode(8192, 0, 280, 16, 4, 24),
                },
                TestKernel {
                    name: "loop_add_fusion",
                    descriptor: kernel_descriptor::encode(0, 32, 24, 2, 2, 4),
                },
            ],
            ("buffer_for_constant", 16),
        )
    }

    #[test]
    fn kernels_and_resources_from_kd_symbols() {
        let image = sample();
        let contents = parse(&image).unwrap();
        let names: Vec<&str> = contents.kernels.iter().map(|k| k.name.as_str()).collect();
        assert_eq!(names, ["gemm_fusion_dot_general_1", "loop_add_fusion"]);
        let gemm = contents.kernels[0].resources.unwrap();
        assert_eq!(gemm.group_segment_size, 8192);
        assert_eq!(gemm.kernarg_segment_size, 280);
        assert_eq!((gemm.arch_vgpr_count, gemm.accum_vgpr_count), (96, 32));
        assert_eq!(gemm.sgpr_count, 32);
        let add = contents.kernels[1].resources.unwrap();
        assert_eq!(add.private_segment_size, 32);
        assert_eq!((add.arch_vgpr_count, add.accum_vgpr_count), (16, 0));
        assert_eq!(
            contents.globals,
            [GlobalSymbol {
                name: "buffer_for_constant".into(),
                size: 16
            }]
        );
        // SAFETY: a complete image.
        assert_eq!(unsafe { extent_in_memory(image.as_ptr()) }, Ok(image.len()));
    }

    #[test]
    fn foreign_and_truncated_images_are_invalid() {
        let image = sample();
        let mut x86 = image.clone();
        x86[18..20].copy_from_slice(&62u16.to_le_bytes());
        assert_eq!(parse(&x86), Err(invalid()));
        assert_eq!(parse(&image[..image.len() - 1]), Err(invalid()));
        assert_eq!(parse(&image[..40]), Err(invalid()));
    }

    proptest! {
        /// Any corruption of a valid image parses or is refused; it never panics.
        #[test]
        fn corrupted_images_never_panic(
            edits in proptest::collection::vec((0usize..2048, any::<u8>()), 1..16),
            cut in 0usize..2048,
        ) {
            let mut image = sample();
            for (at, byte) in edits {
                let n = image.len();
                image[at % n] = byte;
            }
            let _ = parse(&image);
            let _ = parse(&image[..cut.min(image.len())]);
        }
    }
}
