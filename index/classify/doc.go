// Package classify tells text from binary and finds the encoding of text,
// from a file's bytes alone. ctxd sends a model only what it can decode
// with certainty: every doubtful case is reported binary, or text of
// [Unknown] encoding, and neither is ever decoded.
//
// The main types are [Result] (from [Detect]) and [Encoding] (the input of
// [Decode], which turns text into UTF-8). [LineCount] counts lines the way
// the index does.
//
// # Rules
//
// [Detect] applies these rules in order; the first that decides wins.
//
//  1. Byte order marks. EF BB BF declares UTF-8: the rest must pass rules
//     3 and 5 and be valid UTF-8, else it is binary or, when invalid,
//     Unknown. FF FE 00 00 and 00 00 FE FF (UTF-32) are Unknown: ctxd does
//     not read UTF-32. FF FE declares UTF-16LE and FE FF UTF-16BE: the rest
//     must have an even length and pair every surrogate (else Unknown),
//     and contain no U+0000 and pass rule 5 (else binary).
//  2. Magic numbers. A file that starts like a known binary format is
//     binary: PNG, JPEG, GIF, PDF, ZIP (and JAR, DOCX...), gzip, bzip2, xz,
//     zstd, 7z, RAR, ELF, Mach-O (32 and 64 bit, both byte orders, and
//     universal), PE (an "MZ" header whose e_lfanew points at "PE\0\0"),
//     WebAssembly, Java class, SQLite, tar ("ustar" at offset 257), ICO and
//     CUR, TIFF, RIFF (WebP, WAV, AVI...), MP3 (ID3 tag or frame sync), Ogg,
//     MP4 and QuickTime ("ftyp" at offset 4) and BMP (only with zero
//     reserved bytes and a known header size, since "BM" also starts text).
//     Signatures that text could start with ("MZ", "BM", "RIFF", "ID3",
//     "BZh", "ustar", "ftyp") are confirmed with more of the header; only
//     "GIF87a", "GIF89a" and "%PDF-" are taken on their own.
//  3. A NUL byte anywhere is binary. The whole file is read: a NUL after
//     the first kilobytes is no less telling, and one fast pass costs
//     little.
//  4. Valid UTF-8 is [ASCII] when every byte is below 0x80 and [UTF8]
//     otherwise. Invalid UTF-8 is [Windows1252] only when it uses none of
//     the five bytes that code page leaves undefined (81 8D 8F 90 9D) and
//     fewer than 1% of its bytes are control characters; anything else is
//     binary when rule 5 says so and Unknown otherwise.
//  5. Control characters: C0 controls other than tab, line feed, vertical
//     tab, form feed, carriage return and escape, and DEL. More than 10% of
//     the characters (of the bytes, for invalid UTF-8) makes a file binary
//     (ANSI-coloured logs keep their escapes; a file of mostly controls is
//     data).
//
// Text without a byte order mark in UTF-16 has NUL bytes and is therefore
// binary: ctxd does not guess at BOM-less UTF-16.
package classify
