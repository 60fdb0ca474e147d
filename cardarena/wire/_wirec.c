/* The wire encoder's inner loops in C (issue 42): optional, built by `make venv` (the
 * editable install's build hook, packages/card-arena-sdk/hatch_build.py); without it
 * cardarena/wire/codec.py runs its compiled Python encoders, which are the reference:
 * tests/cardarena/wire/test_convert.py checks both against protobuf's own serialization.
 *
 * encode(plan, value) -> bytes: ``value``'s message body, its fields written as the
 * plan says (codec._c_plan makes it from the same field plan as the Python encoder).
 * splice(items, cache, miss) -> bytes: each item's kept bytes looked up by identity in
 * ``cache`` (codec._spliced's: id -> (item, bytes)), ``miss(item)``'s for one not kept
 * by identity (codec._item_wire: by value, then kept), joined. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#define WIREC_VERSION 4

enum {
    K_VARINT = 0,      /* a: tag */
    K_ENUM = 1,        /* a: tag, b: table (member -> number) */
    K_CARD = 2,        /* a: tuple card -> its field bytes (tag included) */
    K_STRING = 3,      /* a: tag */
    K_MSG = 4,         /* a: tag, b: encoder (value -> body bytes) */
    K_REP_CARD = 5,    /* a: as K_CARD */
    K_REP_PACKED = 6,  /* a: tag, b: enum table or None */
    K_REP_STRING = 7,  /* a: tag */
    K_REP_MSG = 8,     /* a: memo dict id -> (item, bytes), b: encoder of a miss (item -> field bytes) */
    K_DOUBLE = 9,      /* a: tag */
    K_REP_DOUBLE = 10, /* a: tag (packed) */
};

/* How the Python encoder tests a field before writing it. */
enum { T_TRUE = 0, T_NOT_NONE = 1, T_NOT_NONE_AND_TRUE = 2 };

typedef struct {
    char *data;
    Py_ssize_t len, cap;
} Buf;

static int buf_grow(Buf *b, Py_ssize_t more) {
    if (b->len + more <= b->cap) return 0;
    Py_ssize_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + more) cap *= 2;
    char *d = PyMem_Realloc(b->data, cap);
    if (!d) { PyErr_NoMemory(); return -1; }
    b->data = d;
    b->cap = cap;
    return 0;
}

static int buf_put(Buf *b, const char *s, Py_ssize_t n) {
    if (buf_grow(b, n) < 0) return -1;
    memcpy(b->data + b->len, s, n);
    b->len += n;
    return 0;
}

static int buf_bytes(Buf *b, PyObject *o) {
    if (!PyBytes_Check(o)) { PyErr_SetString(PyExc_TypeError, "wire: expected bytes"); return -1; }
    return buf_put(b, PyBytes_AS_STRING(o), PyBytes_GET_SIZE(o));
}

static int buf_varint(Buf *b, unsigned long long n) {
    char tmp[10];
    int i = 0;
    while (n > 0x7F) { tmp[i++] = (char)((n & 0x7F) | 0x80); n >>= 7; }
    tmp[i++] = (char)n;
    return buf_put(b, tmp, i);
}

/* An int as protobuf writes an int32/int64/uint/bool/enum: a negative one as its 64-bit
 * two's complement (codec._varint_any). */
static int buf_int(Buf *b, PyObject *x) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(x, &overflow);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (overflow > 0) {
        unsigned long long u = PyLong_AsUnsignedLongLong(x);
        if (u == (unsigned long long)-1 && PyErr_Occurred()) return -1;
        return buf_varint(b, u);
    }
    if (overflow < 0) { PyErr_SetString(PyExc_OverflowError, "wire: int too small"); return -1; }
    return buf_varint(b, (unsigned long long)v);
}

static int buf_double(Buf *b, PyObject *x) {
    double v = PyFloat_AsDouble(x);
    if (v == -1.0 && PyErr_Occurred()) return -1;
    if (buf_grow(b, 8) < 0) return -1;
    if (PyFloat_Pack8(v, b->data + b->len, 1) < 0) return -1; /* little-endian, as struct's '<d' */
    b->len += 8;
    return 0;
}

static int buf_delimited(Buf *b, PyObject *tag, const char *s, Py_ssize_t n) {
    if (buf_bytes(b, tag) < 0 || buf_varint(b, (unsigned long long)n) < 0) return -1;
    return buf_put(b, s, n);
}

static int buf_string(Buf *b, PyObject *tag, PyObject *x) {
    Py_ssize_t n;
    const char *s = PyUnicode_AsUTF8AndSize(x, &n);
    if (!s) return -1;
    return buf_delimited(b, tag, s, n);
}

/* 1: write the field; 0: skip it; -1: error. */
static int wanted(PyObject *x, long test) {
    if (test == T_TRUE) return PyObject_IsTrue(x);
    if (x == Py_None) return 0;
    if (test == T_NOT_NONE) return 1;
    return PyObject_IsTrue(x);
}

static int put_item_bytes(Buf *b, PyObject *memo, PyObject *miss, PyObject *y) {
    PyObject *key = PyLong_FromVoidPtr(y);
    if (!key) return -1;
    PyObject *hit = PyDict_GetItemWithError(memo, key); /* borrowed */
    Py_DECREF(key);
    if (hit && PyTuple_CheckExact(hit) && PyTuple_GET_SIZE(hit) == 2 && PyTuple_GET_ITEM(hit, 0) == y)
        return buf_bytes(b, PyTuple_GET_ITEM(hit, 1));
    if (PyErr_Occurred()) return -1;
    PyObject *wire = PyObject_CallOneArg(miss, y);
    if (!wire) return -1;
    int r = buf_bytes(b, wire);
    Py_DECREF(wire);
    return r;
}

static int field(Buf *b, PyObject *x, long kind, long test, PyObject *a, PyObject *bb) {
    int w = wanted(x, test);
    if (w <= 0) return w;
    switch (kind) {
    case K_VARINT:
        if (buf_bytes(b, a) < 0) return -1;
        return buf_int(b, x);
    case K_ENUM: {
        PyObject *n = PyObject_GetItem(bb, x);
        if (!n) return -1;
        int r = 0;
        int nz = PyObject_IsTrue(n);
        if (nz < 0) r = -1;
        else if (nz || test == T_NOT_NONE) { /* a field without presence leaves its zero unwritten */
            if (buf_bytes(b, a) < 0 || buf_int(b, n) < 0) r = -1;
        }
        Py_DECREF(n);
        return r;
    }
    case K_CARD: {
        PyObject *t = PyObject_GetItem(a, x);
        if (!t) return -1;
        int r = buf_bytes(b, t);
        Py_DECREF(t);
        return r;
    }
    case K_STRING:
        return buf_string(b, a, x);
    case K_DOUBLE:
        if (buf_bytes(b, a) < 0) return -1;
        return buf_double(b, x);
    case K_MSG: {
        PyObject *body = PyObject_CallOneArg(bb, x);
        if (!body) return -1;
        int r = PyBytes_Check(body) ? buf_delimited(b, a, PyBytes_AS_STRING(body), PyBytes_GET_SIZE(body)) : -1;
        if (r < 0 && !PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "wire: an encoder returned no bytes");
        Py_DECREF(body);
        return r;
    }
    default:
        break;
    }
    /* repeated fields */
    PyObject *seq = PySequence_Fast(x, "wire: a repeated field must be a sequence");
    if (!seq) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    int r = 0;
    switch (kind) {
    case K_REP_CARD:
        for (Py_ssize_t i = 0; i < n && r == 0; i++) {
            PyObject *t = PyObject_GetItem(a, items[i]);
            if (!t) { r = -1; break; }
            r = buf_bytes(b, t);
            Py_DECREF(t);
        }
        break;
    case K_REP_PACKED: {
        Buf inner = {NULL, 0, 0};
        for (Py_ssize_t i = 0; i < n && r == 0; i++) {
            if (bb == Py_None) { r = buf_int(&inner, items[i]); continue; }
            PyObject *num = PyObject_GetItem(bb, items[i]);
            if (!num) { r = -1; break; }
            r = buf_int(&inner, num);
            Py_DECREF(num);
        }
        if (r == 0) r = buf_delimited(b, a, inner.data ? inner.data : "", inner.len);
        PyMem_Free(inner.data);
        break;
    }
    case K_REP_DOUBLE: {
        Buf inner = {NULL, 0, 0};
        for (Py_ssize_t i = 0; i < n && r == 0; i++) r = buf_double(&inner, items[i]);
        if (r == 0) r = buf_delimited(b, a, inner.data ? inner.data : "", inner.len);
        PyMem_Free(inner.data);
        break;
    }
    case K_REP_STRING:
        for (Py_ssize_t i = 0; i < n && r == 0; i++) r = buf_string(b, a, items[i]);
        break;
    case K_REP_MSG:
        for (Py_ssize_t i = 0; i < n && r == 0; i++) r = put_item_bytes(b, a, bb, items[i]);
        break;
    default:
        PyErr_Format(PyExc_ValueError, "wire: unknown field kind %ld", kind);
        r = -1;
    }
    Py_DECREF(seq);
    return r;
}

static PyObject *encode(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2 || !PyTuple_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "encode(plan: tuple, value)");
        return NULL;
    }
    PyObject *plan = args[0], *value = args[1];
    Buf b = {NULL, 0, 0};
    Py_ssize_t n = PyTuple_GET_SIZE(plan);
    /* A dataclass's fields are in its instance dict (the views are frozen dataclasses):
     * read there, by the interned name; anything else (slots, a default on the class)
     * through getattr, as Python reads it. */
    PyObject *dict = NULL;
    if (Py_TYPE(value)->tp_dictoffset != 0) {
        dict = PyObject_GenericGetDict(value, NULL); /* a new reference */
        if (!dict) PyErr_Clear();
        else if (!PyDict_CheckExact(dict)) Py_CLEAR(dict);
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *spec = PyTuple_GET_ITEM(plan, i); /* (name, kind, test, a, b) */
        PyObject *name = PyTuple_GET_ITEM(spec, 0);
        PyObject *x = dict ? PyDict_GetItemWithError(dict, name) : NULL;
        if (x) Py_INCREF(x);
        else if (PyErr_Occurred()) goto fail;
        else x = PyObject_GetAttr(value, name);
        if (!x) goto fail;
        int r = field(&b, x, PyLong_AsLong(PyTuple_GET_ITEM(spec, 1)), PyLong_AsLong(PyTuple_GET_ITEM(spec, 2)),
                      PyTuple_GET_ITEM(spec, 3), PyTuple_GET_ITEM(spec, 4));
        Py_DECREF(x);
        if (r < 0) goto fail;
    }
    Py_XDECREF(dict);
    PyObject *out = PyBytes_FromStringAndSize(b.data ? b.data : "", b.len);
    PyMem_Free(b.data);
    return out;
fail:
    Py_XDECREF(dict);
    PyMem_Free(b.data);
    return NULL;
}

static PyObject *splice(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3 || !PyDict_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "splice(items, cache: dict, miss)");
        return NULL;
    }
    PyObject *seq = PySequence_Fast(args[0], "splice: items must be a sequence");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    Buf b = {NULL, 0, 0};
    for (Py_ssize_t i = 0; i < n; i++) {
        if (put_item_bytes(&b, args[1], args[2], items[i]) < 0) {
            Py_DECREF(seq);
            PyMem_Free(b.data);
            return NULL;
        }
    }
    Py_DECREF(seq);
    PyObject *out = PyBytes_FromStringAndSize(b.data ? b.data : "", b.len);
    PyMem_Free(b.data);
    return out;
}

/* Reading: the items of a repeated length-delimited field of a message inside a message,
 * as bytes, without parsing either (the SDK looks a Turn's legal actions up by them). */

static int read_varint(const unsigned char *p, Py_ssize_t n, Py_ssize_t *i, unsigned long long *out) {
    unsigned long long v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (*i >= n) return -1;
        unsigned char c = p[(*i)++];
        v |= (unsigned long long)(c & 0x7F) << shift;
        if (!(c & 0x80)) { *out = v; return 0; }
    }
    return -1;
}

/* The next field at *i: its number and wire type, and for a length-delimited one its body's
 * start and length; the others skipped. -1: malformed or a group (the caller gives up). */
static int next_field(const unsigned char *p, Py_ssize_t n, Py_ssize_t *i, unsigned long long *number, int *wt,
                      Py_ssize_t *start, Py_ssize_t *len) {
    unsigned long long key, v;
    if (read_varint(p, n, i, &key) < 0) return -1;
    *number = key >> 3;
    *wt = (int)(key & 7);
    switch (*wt) {
    case 0: return read_varint(p, n, i, &v);
    case 1: if (n - *i < 8) return -1; *i += 8; return 0;
    case 5: if (n - *i < 4) return -1; *i += 4; return 0;
    case 2:
        if (read_varint(p, n, i, &v) < 0 || v > (unsigned long long)(n - *i)) return -1;
        *start = *i;
        *len = (Py_ssize_t)v;
        *i += (Py_ssize_t)v;
        return 0;
    default: return -1;
    }
}

static PyObject *field_items(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3 || !PyBytes_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "field_items(data: bytes, outer: int, inner: int)");
        return NULL;
    }
    long outer = PyLong_AsLong(args[1]), inner = PyLong_AsLong(args[2]);
    if (PyErr_Occurred()) return NULL;
    const unsigned char *p = (const unsigned char *)PyBytes_AS_STRING(args[0]);
    Py_ssize_t n = PyBytes_GET_SIZE(args[0]), i = 0, start = 0, len = 0, body = -1, body_len = 0;
    unsigned long long number;
    int wt;
    while (i < n) {
        if (next_field(p, n, &i, &number, &wt, &start, &len) < 0) Py_RETURN_NONE;
        if (number == (unsigned long long)outer) {
            if (wt != 2 || body >= 0) Py_RETURN_NONE; /* twice (merged by a parser): not this reader's case */
            body = start;
            body_len = len;
        }
    }
    if (body < 0) Py_RETURN_NONE;
    PyObject *out = PyList_New(0);
    if (!out) return NULL;
    const unsigned char *q = p + body;
    i = 0;
    while (i < body_len) {
        if (next_field(q, body_len, &i, &number, &wt, &start, &len) < 0) { Py_DECREF(out); Py_RETURN_NONE; }
        if (number != (unsigned long long)inner) continue;
        if (wt != 2) { Py_DECREF(out); Py_RETURN_NONE; }
        PyObject *item = PyBytes_FromStringAndSize((const char *)q + start, len);
        if (!item || PyList_Append(out, item) < 0) { Py_XDECREF(item); Py_DECREF(out); return NULL; }
        Py_DECREF(item);
    }
    return out;
}

static PyMethodDef methods[] = {
    {"encode", (PyCFunction)(void (*)(void))encode, METH_FASTCALL, "encode(plan, value) -> the message body's bytes"},
    {"splice", (PyCFunction)(void (*)(void))splice, METH_FASTCALL,
     "splice(items, cache, miss) -> the items' kept bytes joined (miss(item) for one not kept)"},
    {"field_items", (PyCFunction)(void (*)(void))field_items, METH_FASTCALL,
     "field_items(data, outer, inner) -> the bytes of each item of field inner of the message in field outer, "
     "or None (malformed, a group, outer twice or absent)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_wirec", "The wire encoder's inner loops in C.", -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__wirec(void) {
    PyObject *m = PyModule_Create(&module);
    if (m && PyModule_AddIntConstant(m, "VERSION", WIREC_VERSION) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
