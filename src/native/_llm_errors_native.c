/* The log-prefix reader of llm_errors.logs._prefix, compiled (optional).
 *
 * canonical(line) and message_start(line) return exactly what the pure functions of
 * src/llm_errors/logs/_prefix.py return, for every str: that module is the
 * definition (its regular expressions are read here as the `re` module runs them,
 * each step deterministic, as the comments say why), and
 * tests/llm_errors/logs/test_prefix.py holds the two to it on generated lines.
 * One pass over the prefix window and one over the rest: linear in the line.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

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

/* Where the bracketed ids from p on end (_prefix._more_ids). */
static Py_ssize_t more_ids(const Line *line, Py_ssize_t p) {
    Py_ssize_t id_start, id_end, end;
    while ((end = bracketed_id(line, p, &id_start, &id_end)) >= 0)
        p = end;
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
            Py_ssize_t last_end = head.id_end;
            Py_ssize_t p = head.end;
            Py_ssize_t id_start, id_end, end;
            while ((end = bracketed_id(&line, p, &id_start, &id_end)) >= 0) {
                if (zero(&out, id_start, id_end) < 0)
                    goto failed;
                last_end = id_end;
                p = end;
            }
            base = last_end;
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
    Py_ssize_t end = head.end;
    if (head.id_start >= 0)
        end = more_ids(&line, end);
    if (end < line.length && !Py_UNICODE_ISSPACE(full(&line, end)))
        return PyLong_FromSsize_t(end);
    return PyLong_FromLong(0);
}

static PyMethodDef methods[] = {
    {"canonical", canonical, METH_O, "_prefix.canonical, compiled."},
    {"message_start", message_start, METH_O, "_prefix.message_start, compiled."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_llm_errors_native",
    "The log-prefix reader of llm_errors.logs._prefix, compiled (optional).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__llm_errors_native(void) { return PyModule_Create(&module); }
