/* The per-line core of llm-errors, compiled (optional): functions whose Python
 * versions are the definition and the path where this module was not built.
 *
 * canonical(line) and message_start(line) return exactly what the pure functions of
 * src/llm_errors/logs/_prefix.py return, for every str (its regular expressions are
 * read here as the `re` module runs them, each step deterministic, as the comments
 * say why); tests/llm_errors/logs/test_prefix.py holds the two equal. One pass over
 * the prefix window and one over the rest: linear in the line.
 *
 * TokenSet(tokens, table).hits(line) is frozenset(tokens).intersection(
 * line.translate(table).split()) for bytes, without a bytes object per token of the
 * line (llm_errors._match.matcher's may_match); tests/llm_errors/match/test_matcher.py
 * holds the two equal. One pass over the line.
 *
 * excerpt_json(text, inert_forms, scrubbed, window, limit) is logs/_scan.py's
 * excerpt_json for a line whose prefix and message its caches know (None otherwise):
 * json.dumps(excerpt(text)) in one step; tests/llm_errors/logs/test_scan.py holds the
 * two equal. One pass over the prefix and the excerpt.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* _prefix.PREFIX_WINDOW and _prefix._ID_MIN */
#define PREFIX_WINDOW 256
#define ID_MIN 16
#define ID_FORM_MIN 8

typedef struct {
    int kind;
    const void *data;
    Py_ssize_t length; /* the whole line */
    Py_ssize_t limit;  /* the prefix window: min(length, PREFIX_WINDOW) */
} Line;

/* The character at i, or 0 past the window (0 matches none of the classes below,
   as re's endpos ends the string there). */
static inline Py_UCS4 at(const Line *line, Py_ssize_t i) {
    return i < line->limit ? PyUnicode_READ(line->kind, line->data, i) : 0;
}

static inline Py_UCS4 full(const Line *line, Py_ssize_t i) {
    return PyUnicode_READ(line->kind, line->data, i);
}

static inline int is_digit(Py_UCS4 c) { return c >= '0' && c <= '9'; }
static inline int is_letter(Py_UCS4 c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static inline int is_hex(Py_UCS4 c) {
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
/* \w and [\w-] under re.ASCII */
static inline int is_word(Py_UCS4 c) { return is_digit(c) || is_letter(c) || c == '_'; }
static inline int is_name(Py_UCS4 c) { return is_word(c) || c == '-'; }
static inline int is_blank(Py_UCS4 c) { return c == ' ' || c == '\t'; }
static inline int is_run(Py_UCS4 c) { return is_hex(c) || c == '-'; }

typedef struct {
    Py_ssize_t stamp_start, stamp_end;
    Py_ssize_t fraction_start, fraction_end; /* -1: no fraction */
    int zone_z;                               /* the zone is "Z" */
    Py_ssize_t id_start, id_end;              /* -1: no bracketed id */
    Py_ssize_t end;                           /* where the match ends */
} Head;

static Py_ssize_t blanks(const Line *line, Py_ssize_t p) {
    while (is_blank(at(line, p)))
        p++;
    return p;
}

static int digits(const Line *line, Py_ssize_t p, int count) {
    for (int k = 0; k < count; k++)
        if (!is_digit(at(line, p + k)))
            return 0;
    return 1;
}

/* _ID_FORM at p: \[(?:[A-Za-z_]+[=:])?(?P<id>[0-9A-Fa-f-]{8,})\][ \t]+
   Each quantifier is maximal: a shorter key is followed by a letter, not [=:]; a
   shorter id by a run character, not ']'. Returns the end, or -1. */
static Py_ssize_t bracketed_id(const Line *line, Py_ssize_t p, Py_ssize_t *id_start,
                               Py_ssize_t *id_end) {
    if (at(line, p) != '[')
        return -1;
    Py_ssize_t key = p + 1;
    while (is_letter(at(line, key)) || at(line, key) == '_')
        key++;
    Py_ssize_t starts[2] = {-1, p + 1};
    if (key > p + 1 && (at(line, key) == '=' || at(line, key) == ':'))
        starts[0] = key + 1;
    for (int k = 0; k < 2; k++) {
        Py_ssize_t start = starts[k];
        if (start < 0)
            continue;
        Py_ssize_t end = start;
        while (is_run(at(line, end)))
            end++;
        if (end - start >= ID_FORM_MIN && at(line, end) == ']' && is_blank(at(line, end + 1))) {
            *id_start = start;
            *id_end = end;
            return blanks(line, end + 1);
        }
    }
    return -1;
}

static const char *const LEVELS[] = {"TRACE", "DEBUG",    "INFO", "NOTICE", "WARN",
                                     "WARNING", "ERROR", "ERR",  "CRITICAL", "CRIT",
                                     "FATAL", "SEVERE",   "PANIC", "ALERT"};

/* _prefix._HEAD, matched at 0 with endpos PREFIX_WINDOW. After the stamp every part is
   optional and nothing follows that could fail, so re keeps the first way each part
   matches: the level that a blank follows, else none; the dotted logger name, else a
   name before a bracketed id, else none; the bracketed id, else none. */
static int match_head(const Line *line, Head *head) {
    Py_ssize_t p = at(line, 0) == '[' ? 1 : 0; /* the stamp fails at a '[' anyway */
    head->stamp_start = p;
    if (!(digits(line, p, 4) && at(line, p + 4) == '-' && digits(line, p + 5, 2) &&
          at(line, p + 7) == '-' && digits(line, p + 8, 2) &&
          (at(line, p + 10) == 'T' || at(line, p + 10) == ' ') && digits(line, p + 11, 2) &&
          at(line, p + 13) == ':' && digits(line, p + 14, 2) && at(line, p + 16) == ':' &&
          digits(line, p + 17, 2)))
        return 0;
    p += 19;
    /* A fraction of one to nine digits, as many as there are: one fewer leaves a digit
       where a zone, ']' or a blank must follow. */
    head->fraction_start = head->fraction_end = -1;
    if ((at(line, p) == '.' || at(line, p) == ',') && is_digit(at(line, p + 1))) {
        Py_ssize_t q = p + 1;
        while (q < p + 10 && is_digit(at(line, q)))
            q++;
        head->fraction_start = p + 1;
        head->fraction_end = q;
        p = q;
    }
    head->zone_z = 0;
    if (at(line, p) == 'Z') {
        head->zone_z = 1;
        p++;
    } else if ((at(line, p) == '+' || at(line, p) == '-') && digits(line, p + 1, 2)) {
        if (at(line, p + 3) == ':' && digits(line, p + 4, 2))
            p += 6;
        else if (digits(line, p + 3, 2))
            p += 5;
    }
    head->stamp_end = p;
    if (at(line, p) == ']')
        p++;
    if (!is_blank(at(line, p)))
        return 0;
    p = blanks(line, p);
    for (size_t k = 0; k < sizeof(LEVELS) / sizeof(LEVELS[0]); k++) {
        const char *level = LEVELS[k];
        Py_ssize_t q = p;
        while (*level && at(line, q) == (Py_UCS4)(unsigned char)*level) {
            level++;
            q++;
        }
        if (!*level && is_blank(at(line, q))) {
            p = blanks(line, q);
            break;
        }
    }
    if (is_letter(at(line, p)) || at(line, p) == '_') {
        Py_ssize_t q = p;
        while (is_name(at(line, q)))
            q++;
        Py_ssize_t dotted = q;
        int parts = 0;
        while (at(line, dotted) == '.' && is_name(at(line, dotted + 1))) {
            dotted++;
            while (is_name(at(line, dotted)))
                dotted++;
            parts++;
        }
        if (parts && is_blank(at(line, dotted))) {
            p = blanks(line, dotted);
        } else if (is_blank(at(line, q))) {
            Py_ssize_t after = blanks(line, q);
            if (at(line, after) == '[')
                p = after;
        }
    }
    head->id_start = head->id_end = -1;
    Py_ssize_t end = bracketed_id(line, p, &head->id_start, &head->id_end);
    head->end = end < 0 ? p : end;
    return 1;
}

/* The output: the line itself until a character must change, then a copy. */
typedef struct {
    PyObject *source;
    PyObject *copy;
    const Line *line;
} Out;

static int zero(Out *out, Py_ssize_t start, Py_ssize_t end) {
    for (Py_ssize_t i = start; i < end; i++) {
        Py_UCS4 c = full(out->line, i);
        if (!is_hex(c) || c == '0')
            continue;
        if (out->copy == NULL) {
            Py_ssize_t length = out->line->length;
            out->copy = PyUnicode_New(length, PyUnicode_MAX_CHAR_VALUE(out->source));
            if (out->copy == NULL)
                return -1;
            if (PyUnicode_CopyCharacters(out->copy, 0, out->source, 0, length) < 0)
                return -1;
        }
        PyUnicode_WRITE(PyUnicode_KIND(out->copy), PyUnicode_DATA(out->copy), i, '0');
    }
    return 0;
}

static int is_uuid(const Line *line, Py_ssize_t start, Py_ssize_t end) {
    if (end - start != 36)
        return 0;
    for (Py_ssize_t k = 0; k < 36; k++) {
        Py_UCS4 c = full(line, start + k);
        int dash = k == 8 || k == 13 || k == 18 || k == 23;
        if (dash ? c != '-' : !is_hex(c))
            return 0;
    }
    return 1;
}

static inline int ascii_alnum(Py_UCS4 c) { return is_digit(c) || is_letter(c); }

/* _prefix._message_ids over line[base:]: _HEX_RUN's matches are, in each maximal run
   of hex digits and dashes, the part from its first hex digit, when 16 or longer. */
static int message_ids(const Line *line, Py_ssize_t base, Out *out) {
    Py_ssize_t i = base, n = line->length;
    while (i < n) {
        if (!is_run(full(line, i))) {
            i++;
            continue;
        }
        Py_ssize_t end = i;
        while (end < n && is_run(full(line, end)))
            end++;
        Py_ssize_t start = i;
        while (start < end && full(line, start) == '-')
            start++;
        i = end;
        if (end - start < ID_MIN)
            continue;
        if (start > base && ascii_alnum(full(line, start - 1)))
            continue;
        if (end < n && ascii_alnum(full(line, end)))
            continue;
        int dash = 0, digit = 0, letter = 0;
        for (Py_ssize_t k = start; k < end; k++) {
            Py_UCS4 c = full(line, k);
            dash |= c == '-';
            digit |= is_digit(c);
            letter |= is_letter(c);
        }
        if (dash ? !is_uuid(line, start, end) : !(digit && letter))
            continue;
        if (zero(out, start, end) < 0)
            return -1;
    }
    return 0;
}

static int read_line(PyObject *arg, Line *line) {
    if (!PyUnicode_Check(arg)) {
        PyErr_Format(PyExc_TypeError, "a line must be a str, not %.100s", Py_TYPE(arg)->tp_name);
        return -1;
    }
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(arg) < 0)
        return -1;
#endif
    line->kind = PyUnicode_KIND(arg);
    line->data = PyUnicode_DATA(arg);
    line->length = PyUnicode_GET_LENGTH(arg);
    line->limit = line->length < PREFIX_WINDOW ? line->length : PREFIX_WINDOW;
    return 0;
}

/* Where the bracketed ids from p on end (_prefix._more_ids), and where the last of them
   ends (*last_end, left as it is when there are none); with out, each id is zeroed.
   -1 when zeroing failed. */
static Py_ssize_t more_ids(const Line *line, Py_ssize_t p, Out *out, Py_ssize_t *last_end) {
    Py_ssize_t id_start, id_end, end;
    while ((end = bracketed_id(line, p, &id_start, &id_end)) >= 0) {
        if (out != NULL && zero(out, id_start, id_end) < 0)
            return -1;
        *last_end = id_end;
        p = end;
    }
    return p;
}

static PyObject *canonical(PyObject *module, PyObject *arg) {
    (void)module;
    Line line;
    if (read_line(arg, &line) < 0)
        return NULL;
    Out out = {arg, NULL, &line};
    Head head;
    if (!match_head(&line, &head)) {
        if (message_ids(&line, 0, &out) < 0)
            goto failed;
    } else {
        Py_ssize_t base = head.stamp_end;
        int status_like = head.fraction_start >= 0 &&
                          head.fraction_end - head.fraction_start == 3 &&
                          (full(&line, head.fraction_start) == '4' ||
                           full(&line, head.fraction_start) == '5') &&
                          !head.zone_z;
        if (status_like) {
            if (zero(&out, head.stamp_start, head.fraction_start) < 0 ||
                zero(&out, head.fraction_end, head.stamp_end) < 0)
                goto failed;
        } else if (zero(&out, head.stamp_start, head.stamp_end) < 0) {
            goto failed;
        }
        if (head.id_start >= 0) {
            if (zero(&out, head.id_start, head.id_end) < 0)
                goto failed;
            base = head.id_end;
            if (more_ids(&line, head.end, &out, &base) < 0)
                goto failed;
        }
        if (message_ids(&line, base, &out) < 0)
            goto failed;
    }
    if (out.copy != NULL)
        return out.copy;
    Py_INCREF(arg);
    return arg;
failed:
    Py_XDECREF(out.copy);
    return NULL;
}

static PyObject *message_start(PyObject *module, PyObject *arg) {
    (void)module;
    Line line;
    if (read_line(arg, &line) < 0)
        return NULL;
    Head head;
    if (!match_head(&line, &head))
        return PyLong_FromLong(0);
    Py_ssize_t end = head.end, last_id_end;
    if (head.id_start >= 0)
        end = more_ids(&line, end, NULL, &last_id_end);
    if (end < line.length && !Py_UNICODE_ISSPACE(full(&line, end)))
        return PyLong_FromSsize_t(end);
    return PyLong_FromLong(0);
}

/* ---- TokenSet ------------------------------------------------------------------ */

typedef struct {
    PyObject_HEAD
    unsigned char table[256];
    Py_ssize_t mask;    /* slots - 1: slots are a power of two, at least twice the tokens */
    PyObject **slots;   /* the tokens (bytes), NULL where empty */
    uint64_t *hashes;
    Py_ssize_t longest; /* a longer token of a line is none of them */
} TokenSet;

static uint64_t fnv(const unsigned char *data, Py_ssize_t length) {
    uint64_t hash = 14695981039346656037ULL;
    for (Py_ssize_t i = 0; i < length; i++) {
        hash ^= data[i];
        hash *= 1099511628211ULL;
    }
    return hash;
}

static void tokenset_dealloc(PyObject *object) {
    TokenSet *self = (TokenSet *)object;
    if (self->slots != NULL) {
        for (Py_ssize_t i = 0; i <= self->mask; i++)
            Py_XDECREF(self->slots[i]);
        PyMem_Free(self->slots);
    }
    PyMem_Free(self->hashes);
    Py_TYPE(object)->tp_free(object);
}

static int tokenset_add(TokenSet *self, PyObject *token) {
    if (!PyBytes_Check(token)) {
        PyErr_Format(PyExc_TypeError, "a token must be bytes, not %.100s", Py_TYPE(token)->tp_name);
        return -1;
    }
    Py_ssize_t length = PyBytes_GET_SIZE(token);
    uint64_t hash = fnv((const unsigned char *)PyBytes_AS_STRING(token), length);
    Py_ssize_t slot = (Py_ssize_t)(hash & (uint64_t)self->mask);
    while (self->slots[slot] != NULL)
        slot = (slot + 1) & self->mask;
    Py_INCREF(token);
    self->slots[slot] = token;
    self->hashes[slot] = hash;
    if (length > self->longest)
        self->longest = length;
    return 0;
}

static PyObject *tokenset_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"tokens", "table", NULL};
    PyObject *tokens;
    Py_buffer table;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Oy*:TokenSet", keywords, &tokens, &table))
        return NULL;
    TokenSet *self = NULL;
    PyObject *unique = NULL, *iterator = NULL, *token;
    if (table.len != 256) {
        PyErr_SetString(PyExc_ValueError, "the table must be 256 bytes (a bytes.translate table)");
        goto failed;
    }
    unique = PyFrozenSet_New(tokens);
    if (unique == NULL)
        goto failed;
    self = (TokenSet *)type->tp_alloc(type, 0);
    if (self == NULL)
        goto failed;
    memcpy(self->table, table.buf, 256);
    Py_ssize_t slots = 8;
    while (slots < 2 * PySet_GET_SIZE(unique))
        slots *= 2;
    self->mask = slots - 1;
    self->slots = PyMem_Calloc((size_t)slots, sizeof(PyObject *));
    self->hashes = PyMem_Calloc((size_t)slots, sizeof(uint64_t));
    if (self->slots == NULL || self->hashes == NULL) {
        PyErr_NoMemory();
        goto failed;
    }
    iterator = PyObject_GetIter(unique);
    if (iterator == NULL)
        goto failed;
    while ((token = PyIter_Next(iterator)) != NULL) {
        int added = tokenset_add(self, token);
        Py_DECREF(token);
        if (added < 0)
            goto failed;
    }
    if (PyErr_Occurred())
        goto failed;
    Py_DECREF(iterator);
    Py_DECREF(unique);
    PyBuffer_Release(&table);
    return (PyObject *)self;
failed:
    Py_XDECREF(iterator);
    Py_XDECREF(unique);
    Py_XDECREF(self);
    PyBuffer_Release(&table);
    return NULL;
}

/* The token data[start:end], if it is one of the set (a borrowed reference), else NULL. */
static PyObject *tokenset_find(TokenSet *self, const unsigned char *token, Py_ssize_t length) {
    uint64_t hash = fnv(token, length);
    for (Py_ssize_t slot = (Py_ssize_t)(hash & (uint64_t)self->mask); self->slots[slot] != NULL;
         slot = (slot + 1) & self->mask) {
        PyObject *known = self->slots[slot];
        if (self->hashes[slot] == hash && PyBytes_GET_SIZE(known) == length &&
            memcmp(PyBytes_AS_STRING(known), token, (size_t)length) == 0)
            return known;
    }
    return NULL;
}

/* bytes.split()'s separators */
static inline int is_separator(unsigned char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\x0b' || c == '\x0c';
}

static PyObject *tokenset_hits(PyObject *object, PyObject *arg) {
    TokenSet *self = (TokenSet *)object;
    Py_buffer line;
    if (PyObject_GetBuffer(arg, &line, PyBUF_SIMPLE) < 0)
        return NULL;
    const unsigned char *data = line.buf;
    /* (a new frozenset may be filled by PySet_Add before anyone else sees it) */
    PyObject *found = PyFrozenSet_New(NULL);
    unsigned char stack[64];
    unsigned char *token = self->longest <= (Py_ssize_t)sizeof(stack)
                               ? stack
                               : PyMem_Malloc((size_t)self->longest);
    if (found == NULL || token == NULL) {
        if (token == NULL)
            PyErr_NoMemory();
        goto failed;
    }
    Py_ssize_t length = 0;
    for (Py_ssize_t i = 0; i <= line.len; i++) {
        unsigned char c = i < line.len ? self->table[data[i]] : ' ';
        if (!is_separator(c)) {
            if (length < self->longest)
                token[length] = c;
            length++;
            continue;
        }
        if (length > 0 && length <= self->longest) {
            PyObject *known = tokenset_find(self, token, length);
            if (known != NULL && PySet_Add(found, known) < 0)
                goto failed;
        }
        length = 0;
    }
    if (token != stack)
        PyMem_Free(token);
    PyBuffer_Release(&line);
    return found;
failed:
    if (token != NULL && token != stack)
        PyMem_Free(token);
    Py_XDECREF(found);
    PyBuffer_Release(&line);
    return NULL;
}

static PyMethodDef tokenset_methods[] = {
    {"hits", tokenset_hits, METH_O,
     "frozenset(tokens).intersection(line.translate(table).split()), for bytes."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject TokenSetType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "_llm_errors_native.TokenSet",
    .tp_basicsize = sizeof(TokenSet),
    .tp_dealloc = tokenset_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A set of byte tokens, found in a line's translated words (may_match's look-up).",
    .tp_methods = tokenset_methods,
    .tp_new = tokenset_new,
};


/* _scan.excerpt_json(text) where the caches answer: json.dumps(excerpt(text)) (ASCII) for
   a line whose prefix (message_start) is known inert (inert_forms[canonical(prefix)] is
   True) and whose message window is known scrubbed (scrubbed[text[start:window]] is its
   flat form). None where either is unknown or says otherwise: the pure path decides. */
#define HEX "0123456789abcdef"
/* The most bytes json.encoder writes for one character: a surrogate pair, \uXXXX\uXXXX. */
#define JSON_CHAR_MAX 12

static Py_ssize_t json_escape(unsigned char *out, Py_ssize_t n, Py_UCS4 c) {
    out[n++] = '\\';
    switch (c) {
    case '\\': case '"': out[n++] = (unsigned char)c; return n;
    case '\b': out[n++] = 'b'; return n;
    case '\f': out[n++] = 'f'; return n;
    case '\n': out[n++] = 'n'; return n;
    case '\r': out[n++] = 'r'; return n;
    case '\t': out[n++] = 't'; return n;
    }
    if (c >= 0x10000) {
        Py_UCS4 high = Py_UNICODE_HIGH_SURROGATE(c);
        out[n++] = 'u';
        for (int shift = 12; shift >= 0; shift -= 4)
            out[n++] = HEX[(high >> shift) & 0xf];
        c = Py_UNICODE_LOW_SURROGATE(c);
        out[n++] = '\\';
    }
    out[n++] = 'u';
    for (int shift = 12; shift >= 0; shift -= 4)
        out[n++] = HEX[(c >> shift) & 0xf];
    return n;
}

/* Write character c as json.encoder.encode_basestring_ascii does, as the excerpt's
   next one: past `limit` characters, stop (`more`: the excerpt is cut), and remember
   where the first limit - 1 end (`mark`, where the ellipsis goes). */
#define EMIT(c)                                                                     \
    do {                                                                            \
        Py_UCS4 c_ = (c);                                                           \
        if (emitted == limit) {                                                     \
            more = 1;                                                               \
            goto done;                                                              \
        }                                                                           \
        if (emitted == limit - 1)                                                   \
            mark = p;                                                               \
        if (c_ >= ' ' && c_ <= '~' && c_ != '\\' && c_ != '"')                      \
            *p++ = (unsigned char)c_;                                               \
        else                                                                        \
            p += json_escape(p, 0, c_);                                             \
        emitted++;                                                                  \
    } while (0)

static PyObject *excerpt_json(PyObject *module, PyObject *args) {
    PyObject *text, *inert_forms, *scrubbed;
    Py_ssize_t window, limit;
    if (!PyArg_ParseTuple(args, "UO!O!nn:excerpt_json", &text, &PyDict_Type, &inert_forms,
                          &PyDict_Type, &scrubbed, &window, &limit))
        return NULL;
    if (limit < 1) {
        PyErr_SetString(PyExc_ValueError, "limit must be at least 1");
        return NULL;
    }
    Line line;
    if (read_line(text, &line) < 0)
        return NULL;
    PyObject *start_object = message_start(module, text);
    if (start_object == NULL)
        return NULL;
    Py_ssize_t start = PyLong_AsSsize_t(start_object);
    Py_DECREF(start_object);
    if (start <= 0)
        Py_RETURN_NONE;
    PyObject *head = PyUnicode_Substring(text, 0, start);
    if (head == NULL)
        return NULL;
    PyObject *form = canonical(module, head);
    Py_DECREF(head);
    if (form == NULL)
        return NULL;
    PyObject *inert = PyDict_GetItemWithError(inert_forms, form); /* borrowed */
    Py_DECREF(form);
    if (inert != Py_True) {
        if (inert == NULL && PyErr_Occurred())
            return NULL;
        Py_RETURN_NONE;
    }
    PyObject *message = PyUnicode_Substring(text, start, line.length < window ? line.length : window);
    if (message == NULL)
        return NULL;
    PyObject *flat = PyDict_GetItemWithError(scrubbed, message); /* borrowed */
    Py_DECREF(message);
    if (flat == NULL || !PyUnicode_Check(flat)) {
        if (flat == NULL && PyErr_Occurred())
            return NULL;
        Py_RETURN_NONE;
    }
    /* " ".join(text[:start].split()) + " " + flat, in one pass: cut as excerpt cuts, to
       limit - 1 characters and an ellipsis when it is longer than limit. */
    unsigned char stack[4096];
    Py_ssize_t most = limit * JSON_CHAR_MAX + 8;
    unsigned char *buffer = most <= (Py_ssize_t)sizeof stack ? stack : PyMem_Malloc((size_t)most);
    if (buffer == NULL)
        return PyErr_NoMemory();
    Py_INCREF(flat); /* a borrowed value: held while it is read */
    unsigned char *p = buffer, *mark = buffer;
    Py_ssize_t emitted = 0;
    int more = 0, pending = 0, started = 0;
    *p++ = '"';
    for (Py_ssize_t i = 0; i < start; i++) {
        Py_UCS4 c = full(&line, i);
        if (Py_UNICODE_ISSPACE(c)) {
            pending = started;
            continue;
        }
        if (pending)
            EMIT(' ');
        EMIT(c);
        pending = 0;
        started = 1;
    }
    EMIT(' ');
    {
        int kind = PyUnicode_KIND(flat);
        const void *data = PyUnicode_DATA(flat);
        Py_ssize_t length = PyUnicode_GET_LENGTH(flat);
        if (kind == PyUnicode_1BYTE_KIND) {
            const Py_UCS1 *bytes = data;
            for (Py_ssize_t i = 0; i < length; i++)
                EMIT(bytes[i]);
        } else {
            for (Py_ssize_t i = 0; i < length; i++)
                EMIT(PyUnicode_READ(kind, data, i));
        }
    }
done:
    Py_DECREF(flat);
    if (more) {
        p = mark;
        memcpy(p, "\\u2026", 6);
        p += 6;
    }
    *p++ = '"';
    Py_ssize_t size = p - buffer;
    PyObject *result = PyUnicode_New(size, 127);
    if (result != NULL)
        memcpy(PyUnicode_1BYTE_DATA(result), buffer, (size_t)size);
    if (buffer != stack)
        PyMem_Free(buffer);
    return result;
}

static PyMethodDef methods[] = {
    {"canonical", canonical, METH_O, "_prefix.canonical, compiled."},
    {"message_start", message_start, METH_O, "_prefix.message_start, compiled."},
    {"excerpt_json", excerpt_json, METH_VARARGS,
     "excerpt_json(text, inert_forms, scrubbed, window, limit): _scan.excerpt_json where "
     "the caches answer, else None."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_llm_errors_native",
    "The per-line core of llm_errors, compiled (optional).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__llm_errors_native(void) {
    if (PyType_Ready(&TokenSetType) < 0)
        return NULL;
    PyObject *created = PyModule_Create(&module);
    if (created == NULL)
        return NULL;
    Py_INCREF(&TokenSetType);
    if (PyModule_AddObject(created, "TokenSet", (PyObject *)&TokenSetType) < 0) {
        Py_DECREF(&TokenSetType);
        Py_DECREF(created);
        return NULL;
    }
    return created;
}
