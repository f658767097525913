/* Generated from emutrace/machine/abi.py (python -m emutrace.machine.abi; setup.py's
 * build_ext writes it at every build). Do not edit: edit abi.py. */
#ifndef EMUTRACE_ABI_H
#define EMUTRACE_ABI_H

#include <stddef.h>
#include <stdint.h>

#define ABI_VERSION 14

#define RET_TAG UINT64_C(0xFFFFFFFFFFFFFFFF)
#define HEAD 72
#define REC_ARGS 8
#define REC_SLOT 56
#define REC_RET 64
#define RET_SIZE 48
#define RET_SLOT 8
#define RET_ADDR 16
#define RET_RAX 24
#define RET_CAPTURED 32
#define RET_OUTN 40
#define RET_CSTR 1
#define RET_WSTR 2
#define RET_OUTLEN 4
#define OUTLEN_WIDE 1
#define OUTLEN_32 2
#define RET_PAIR 8
#define IN_CSTR 16
#define IN_WSTR 32
#define PRINTF_RECORD 80
#define RPTR 0
#define SHTOP 16

#define FORMAT_READ_LIMIT 65536
#define STRUCT_TOKENS_MAX 512
#define STRUCT_DEPTH_MAX 32
#define PRINTF_CONVERSIONS_MAX 4096
#define STRACE_COLUMN 39

enum op_kind {
    OP_UNSIGNED = 1,        /* str(w & mask) */
    OP_SIGNED = 2,          /* the low `size` bytes as a signed integer */
    OP_HEX = 3,             /* "0x%x" % (w & mask), "0" for zero */
    OP_GUESS = 4,           /* ltrace's guess for a 64-bit word: decimal near zero, else hex */
    OP_ADDR = 5,            /* a pointer: "0x%x", "0" for NULL */
    OP_CSTR = 6,            /* a C string copied at the call (limit + 2 bytes, of which limit + 1 are read) */
    OP_BUF = 7,             /* a buffer whose length is another argument word */
    OP_WSTR = 8,            /* a wide string copied at the call (4 * (limit + 1) bytes) */
    OP_CHAR = 9,            /* a char: its escape between single quotes */
    OP_BOOL = 10,           /* "false" when w & mask is 0, else "true" */
    OP_ENUM = 11,           /* the first name whose value & mask is w & mask, else `fallback` */
    OP_WCHAR = 12,          /* a wchar_t: its escape between L' and ' */
    OP_RETSTR = 13,         /* an output C string of at most the returned value's characters */
    OP_RETWSTR = 14,        /* ... a wide one: both copied by the return (the "output copy") */
    OP_BITVEC = 15,         /* a pointer to a `size`-byte set of bits, copied at the call or (area 0) by the return */
    OP_INTSTRUCT = 16,      /* a returned structure of integers in rax and rdx (the output copy holds rdx) */
    OP_STRN = 17,           /* a C string of at most the length word's characters (ltrace's stringN) */
    OP_FLAGS = 18,          /* the names of the flags set in w & mask, "|"-joined */
    OP_OCT = 19,            /* "0%o" % (w & mask) */
    OP_STRUCT = 20,         /* a pointer to a `size`-byte structure of integers: its fields by its layout's tokens */
    OP_MAX = 20
};

/* a struct op's layout tokens (renderops.STRUCT_*) */
enum { TOK_OPEN, TOK_CLOSE, TOK_UNSIGNED, TOK_SIGNED, TOK_HEX, TOK_OCT };

/* the constants the module exports (PyModule_AddIntConstant) */
#define ABI_CONSTS \
    {"ABI_VERSION", ABI_VERSION}, \
    {"OP_UNSIGNED", OP_UNSIGNED}, \
    {"OP_SIGNED", OP_SIGNED}, \
    {"OP_HEX", OP_HEX}, \
    {"OP_GUESS", OP_GUESS}, \
    {"OP_ADDR", OP_ADDR}, \
    {"OP_CSTR", OP_CSTR}, \
    {"OP_BUF", OP_BUF}, \
    {"OP_WSTR", OP_WSTR}, \
    {"OP_CHAR", OP_CHAR}, \
    {"OP_BOOL", OP_BOOL}, \
    {"OP_ENUM", OP_ENUM}, \
    {"OP_WCHAR", OP_WCHAR}, \
    {"OP_RETSTR", OP_RETSTR}, \
    {"OP_RETWSTR", OP_RETWSTR}, \
    {"OP_BITVEC", OP_BITVEC}, \
    {"OP_INTSTRUCT", OP_INTSTRUCT}, \
    {"OP_STRN", OP_STRN}, \
    {"OP_FLAGS", OP_FLAGS}, \
    {"OP_OCT", OP_OCT}, \
    {"OP_STRUCT", OP_STRUCT}, \

/* the texts the value renderers write (abi.TEXTS; TXT_<NAME>_LEN: its length) */
#define TXT_NIL "nil"
#define TXT_NIL_LEN 3
#define TXT_TRUE "true"
#define TXT_TRUE_LEN 4
#define TXT_FALSE "false"
#define TXT_FALSE_LEN 5
#define TXT_VOID "<void>"
#define TXT_VOID_LEN 6
#define TXT_QUOTE "\""
#define TXT_QUOTE_LEN 1
#define TXT_ELLIPSIS "..."
#define TXT_ELLIPSIS_LEN 3
#define TXT_WIDE_OPEN "L\""
#define TXT_WIDE_OPEN_LEN 2
#define TXT_CHAR_QUOTE "'"
#define TXT_CHAR_QUOTE_LEN 1
#define TXT_WCHAR_OPEN "L'"
#define TXT_WCHAR_OPEN_LEN 2
#define TXT_CALL_CLOSE ")"
#define TXT_CALL_CLOSE_LEN 1
#define TXT_SEP ", "
#define TXT_SEP_LEN 2
#define TXT_STRUCT_OPEN "{ "
#define TXT_STRUCT_OPEN_LEN 2
#define TXT_STRUCT_CLOSE " }"
#define TXT_STRUCT_CLOSE_LEN 2
#define TXT_FLAG_SEP "|"
#define TXT_FLAG_SEP_LEN 1
#define TXT_HEX "0x"
#define TXT_HEX_LEN 2
#define TXT_OCT "0"
#define TXT_OCT_LEN 1
#define TXT_BITS_NOT "~"
#define TXT_BITS_NOT_LEN 1
#define TXT_BITS_OPEN "<"
#define TXT_BITS_OPEN_LEN 1
#define TXT_BITS_CLOSE ">"
#define TXT_BITS_CLOSE_LEN 1
#define TXT_BITS_SEP ","
#define TXT_BITS_SEP_LEN 1
#define TXT_BITS_RANGE "-"
#define TXT_BITS_RANGE_LEN 1

#define GUESS_DECIMAL_MAX 10000
#define WIDE_ESC_SHORT 4
#define WIDE_ESC_LONG 8
#define LTRACE_ESC_PRINTABLE 92
/* ltrace's escape letter of each byte (abi.LTRACE_ESCAPES) */
#define LTRACE_ESC_LETTERS { [0] = '0', [7] = 'a', [8] = 'b', [9] = 't', [10] = 'n', [11] = 'v', [12] = 'f', [13] = 'r', [92] = '\\' }
/* strace's escape letter of each byte (abi.STRACE_ESCAPES) */
#define STRACE_ESC_LETTERS { [9] = 't', [10] = 'n', [11] = 'v', [12] = 'f', [13] = 'r', [34] = '"', [92] = '\\' }

/* strace's texts (abi.STRACE_TEXTS; STR_<NAME>_LEN: its length) */
#define STR_NULL "NULL"
#define STR_NULL_LEN 4
#define STR_ELLIPSIS "..."
#define STR_ELLIPSIS_LEN 3
#define STR_QUOTE "\""
#define STR_QUOTE_LEN 1
#define STR_SEP ", "
#define STR_SEP_LEN 2
#define STR_CALL_CLOSE ")"
#define STR_CALL_CLOSE_LEN 1
#define STR_HEX "0x"
#define STR_HEX_LEN 2
#define STR_ZERO "0"
#define STR_ZERO_LEN 1
#define STR_MINUS "-"
#define STR_MINUS_LEN 1
#define STR_ID_UNCHANGED "-1"
#define STR_ID_UNCHANGED_LEN 2
#define STRACE_ERRNO_MAX 4095
#define STRACE_PLAIN_MAX 2147483648LL
#define STRACE_OCTAL_LONG 3

/* the argument kinds StraceRow renders (abi.STRACE_ROW_KINDS) */
enum strace_row_kind { SK_INT, SK_UINT, SK_LONG, SK_ULONG, SK_HEX, SK_HEX32, SK_PTR, SK_UID, SK_FD, SK_BUF_IN, SK_BUF_OUT, SK_COUNT };

/* each byte's text in strace's quotes (abi.strace_byte_texts) */
#define STRACE_BYTE_TEXTS { \
    "\\0", "\\1", "\\2", "\\3", "\\4", "\\5", "\\6", "\\7", "\\10", "\\t", "\\n", "\\v", "\\f", "\\r", "\\16", "\\17", \
    "\\20", "\\21", "\\22", "\\23", "\\24", "\\25", "\\26", "\\27", "\\30", "\\31", "\\32", "\\33", "\\34", "\\35", "\\36", "\\37", \
    " ", "!", "\\\"", "#", "$", "%", "&", "'", "(", ")", "*", "+", ",", "-", ".", "/", \
    "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", ":", ";", "<", "=", ">", "?", \
    "@", "A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K", "L", "M", "N", "O", \
    "P", "Q", "R", "S", "T", "U", "V", "W", "X", "Y", "Z", "[", "\\\\", "]", "^", "_", \
    "`", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", \
    "p", "q", "r", "s", "t", "u", "v", "w", "x", "y", "z", "{", "|", "}", "~", "\\177", \
    "\\200", "\\201", "\\202", "\\203", "\\204", "\\205", "\\206", "\\207", "\\210", "\\211", "\\212", "\\213", "\\214", "\\215", "\\216", "\\217", \
    "\\220", "\\221", "\\222", "\\223", "\\224", "\\225", "\\226", "\\227", "\\230", "\\231", "\\232", "\\233", "\\234", "\\235", "\\236", "\\237", \
    "\\240", "\\241", "\\242", "\\243", "\\244", "\\245", "\\246", "\\247", "\\250", "\\251", "\\252", "\\253", "\\254", "\\255", "\\256", "\\257", \
    "\\260", "\\261", "\\262", "\\263", "\\264", "\\265", "\\266", "\\267", "\\270", "\\271", "\\272", "\\273", "\\274", "\\275", "\\276", "\\277", \
    "\\300", "\\301", "\\302", "\\303", "\\304", "\\305", "\\306", "\\307", "\\310", "\\311", "\\312", "\\313", "\\314", "\\315", "\\316", "\\317", \
    "\\320", "\\321", "\\322", "\\323", "\\324", "\\325", "\\326", "\\327", "\\330", "\\331", "\\332", "\\333", "\\334", "\\335", "\\336", "\\337", \
    "\\340", "\\341", "\\342", "\\343", "\\344", "\\345", "\\346", "\\347", "\\350", "\\351", "\\352", "\\353", "\\354", "\\355", "\\356", "\\357", \
    "\\360", "\\361", "\\362", "\\363", "\\364", "\\365", "\\366", "\\367", "\\370", "\\371", "\\372", "\\373", "\\374", "\\375", "\\376", "\\377", \
}
/* ... when an octal digit follows it (abi.strace_octal; NULL: the same text) */
#define STRACE_BYTE_TEXTS_BEFORE_DIGIT { \
    "\\000", "\\001", "\\002", "\\003", "\\004", "\\005", "\\006", "\\007", "\\010", NULL, NULL, NULL, NULL, NULL, "\\016", "\\017", \
    "\\020", "\\021", "\\022", "\\023", "\\024", "\\025", "\\026", "\\027", "\\030", "\\031", "\\032", "\\033", "\\034", "\\035", "\\036", "\\037", \
    NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, \
    NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, \
    NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, \
    NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, \
    NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, \
    NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, \
    NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, \
    NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, \
    NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, \
    NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, \
    NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, \
    NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, \
    NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, \
    NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, \
}

/* result_at (abi.py): a head padded with spaces to a column, then RESULT_SEP and the result */
#define RESULT_SEP " = "
#define RESULT_SEP_LEN 3
/* the spaces after a head of `len` columns */
static inline ptrdiff_t result_pad(ptrdiff_t len, ptrdiff_t column) { return len < column ? column - len : 0; }

#endif
