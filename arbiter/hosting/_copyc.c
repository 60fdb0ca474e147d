/* An in-process seat's copies (arbiter/hosting/inprocess.py, bot_copy) in C: optional,
 * built with the C wire encoder by make venv (packages/card-arena-sdk/hatch_build.py);
 * without it inprocess.py's Python copy serves, which is the reference:
 * tests/arbiter/batch/test_venue.py runs the copy tests on both.
 *
 * copy(value, memo, kinds, slow) -> the bot's copy of ``value``, made as the Python copy
 * makes it: ``kinds`` (inprocess._KINDS) says how a type's values are copied: 0 an atom
 * (handed out as it is), 1 a tuple (copied only when an item is), 2 a list, 4 a dataclass
 * keeping its fields in its __dict__ (object.__new__ of its type, the dict's atoms as they
 * are, the rest copied); a type not in it, or of another kind (a dict, a slotted dataclass,
 * anything else), is ``slow(value, memo)``'s: the Python copy, which learns the type.
 * ``memo``: id(original) -> its copy and -id(original) -> the original (kept alive, so that
 * its id is no other object's while the memo lasts), one per seat, shared with the Python copy.
 * copy_each(items, memo, kinds, slow) -> a list of each item's copy (a legal-action list:
 * the list itself is not kept in the memo). */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define COPYC_VERSION 6

enum { K_ATOM = 0, K_TUPLE = 1, K_LIST = 2, K_DATACLASS = 4 };

static PyObject *object_new; /* object.__new__: its checks, as the Python copy calls it */
static PyObject *empty_args;

/* The last type looked up in kinds, and its kind (a card's, as a rule: most items are
 * cards). A type in kinds stays there, alive, and its kind does not change. */
static PyObject *last_kinds;
static PyTypeObject *last_type;
static int last_kind;

/* How type(v) is copied: a kind, -1 if kinds does not know it, -2 on an error. The builtin
 * atoms are inprocess._kind_of's always (an int, a str, a float, a bool, None). */
static int kind_of(PyObject *kinds, PyObject *v) {
    PyTypeObject *type = Py_TYPE(v);
    if (type == &PyLong_Type || type == &PyUnicode_Type || type == &PyFloat_Type || type == &PyBool_Type || v == Py_None)
        return K_ATOM;
    if (type == last_type && kinds == last_kinds) return last_kind;
    PyObject *k = PyDict_GetItemWithError(kinds, (PyObject *)type);
    if (k == NULL) return PyErr_Occurred() ? -2 : -1;
    long n = PyLong_AsLong(k);
    if (n == -1 && PyErr_Occurred()) return -2;
    last_kinds = kinds;
    last_type = type;
    last_kind = (int)n;
    return (int)n;
}

static PyObject *copy_of(PyObject *value, PyObject *memo, PyObject *kinds, PyObject *slow);

static PyObject *copy_tuple(PyObject *t, PyObject *memo, PyObject *kinds, PyObject *slow) {
    Py_ssize_t n = PyTuple_GET_SIZE(t);
    PyObject *out = NULL; /* made at the first item copied: till then the tuple is the copy */
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = PyTuple_GET_ITEM(t, i);
        PyObject *c = copy_of(v, memo, kinds, slow);
        if (c == NULL) {
            Py_XDECREF(out);
            return NULL;
        }
        if (out == NULL && c != v) {
            out = PyTuple_New(n);
            if (out == NULL) {
                Py_DECREF(c);
                return NULL;
            }
            for (Py_ssize_t j = 0; j < i; j++) PyTuple_SET_ITEM(out, j, Py_NewRef(PyTuple_GET_ITEM(t, j)));
        }
        if (out != NULL)
            PyTuple_SET_ITEM(out, i, c);
        else
            Py_DECREF(c);
    }
    return out != NULL ? out : Py_NewRef(t);
}

/* A new list of each item's copy; ``items`` a tuple (a list is read through a snapshot). */
static PyObject *copy_items(PyObject *items, PyObject *memo, PyObject *kinds, PyObject *slow) {
    Py_ssize_t n = PyTuple_GET_SIZE(items);
    PyObject *out = PyList_New(n);
    if (out == NULL) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *c = copy_of(PyTuple_GET_ITEM(items, i), memo, kinds, slow);
        if (c == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, c);
    }
    return out;
}

static PyObject *copy_list(PyObject *list, PyObject *memo, PyObject *kinds, PyObject *slow) {
    PyObject *items = PyList_AsTuple(list);
    if (items == NULL) return NULL;
    PyObject *out = copy_items(items, memo, kinds, slow);
    Py_DECREF(items);
    return out;
}

/* ``name`` set to ``v`` in ``out``'s __dict__, as the Python copy's ``fields.update`` does:
 * through object.__setattr__, which keeps it in the instance's own storage (no dict object
 * made: one object fewer for the garbage collector to walk, the copy living as long as the
 * memo), unless the type has a data descriptor of that name, which the dict bypasses. */
static int set_field(PyObject *out, PyObject *name, PyObject *v) {
    PyObject *descr = _PyType_Lookup(Py_TYPE(out), name);
    if (descr == NULL || Py_TYPE(descr)->tp_descr_set == NULL) return PyObject_GenericSetAttr(out, name, v);
    PyObject *fields = PyObject_GenericGetDict(out, NULL);
    if (fields == NULL) return -1;
    int done = PyDict_SetItem(fields, name, v);
    Py_DECREF(fields);
    return done;
}

/* object.__new__(type): straight to object's tp_new where object.__new__ would call it (the
 * type's first static base is object: what its "is not safe" check asks), else through
 * object.__new__ itself, which raises as the Python copy's call does. */
static PyObject *new_instance(PyTypeObject *type) {
    PyTypeObject *base = type;
    while (base != NULL && (base->tp_flags & Py_TPFLAGS_HEAPTYPE)) base = base->tp_base;
    if (base == &PyBaseObject_Type) return PyBaseObject_Type.tp_new(type, empty_args, NULL);
    return PyObject_CallOneArg(object_new, (PyObject *)type);
}

static PyObject *copy_dataclass(PyObject *value, PyObject *memo, PyObject *kinds, PyObject *slow) {
    PyObject *held = PyObject_GenericGetDict(value, NULL);
    if (held == NULL) return NULL;
    PyObject *out = new_instance(Py_TYPE(value));
    if (out == NULL) goto fail;
    Py_ssize_t pos = 0;
    PyObject *name, *v;
    while (PyDict_Next(held, &pos, &name, &v)) { /* the atoms as they are, the rest copied */
        int kind = kind_of(kinds, v);
        if (kind == -2) goto fail;
        Py_INCREF(name);
        Py_INCREF(v);
        PyObject *c = kind == K_ATOM ? Py_NewRef(v) : copy_of(v, memo, kinds, slow);
        int bad = c == NULL || set_field(out, name, c) < 0;
        Py_XDECREF(c);
        Py_DECREF(v);
        Py_DECREF(name);
        if (bad) goto fail;
    }
    Py_DECREF(held);
    return out;
fail:
    Py_XDECREF(out);
    Py_DECREF(held);
    return NULL;
}

static PyObject *copy_of(PyObject *value, PyObject *memo, PyObject *kinds, PyObject *slow) {
    int kind = kind_of(kinds, value);
    if (kind == -2) return NULL;
    if (kind == K_ATOM) return Py_NewRef(value);
    if (kind == K_TUPLE) { /* of atoms only (a hand, a pile): its own copy, kept nowhere (a memo
                            * entry costs more than the next step's look at its items) */
        Py_ssize_t n = PyTuple_GET_SIZE(value), i;
        for (i = 0; i < n; i++) {
            int k = kind_of(kinds, PyTuple_GET_ITEM(value, i));
            if (k == -2) return NULL;
            if (k != K_ATOM) break;
        }
        if (i == n) return Py_NewRef(value);
    }
    PyObject *key = PyLong_FromVoidPtr(value);
    if (key == NULL) return NULL;
    PyObject *seen = PyDict_GetItemWithError(memo, key);
    if (seen != NULL) {
        Py_DECREF(key);
        return Py_NewRef(seen);
    }
    if (PyErr_Occurred()) {
        Py_DECREF(key);
        return NULL;
    }
    if (kind != K_TUPLE && kind != K_LIST && kind != K_DATACLASS) {
        Py_DECREF(key);
        return PyObject_CallFunctionObjArgs(slow, value, memo, NULL);
    }
    if (Py_EnterRecursiveCall(" while copying a value for a bot")) {
        Py_DECREF(key);
        return NULL;
    }
    PyObject *out = kind == K_TUPLE  ? copy_tuple(value, memo, kinds, slow)
                    : kind == K_LIST ? copy_list(value, memo, kinds, slow)
                                     : copy_dataclass(value, memo, kinds, slow);
    Py_LeaveRecursiveCall();
    if (out != NULL) { /* memo[id] = the copy; memo[-id] = the original, kept alive (its id stays its own) */
        PyObject *keep = PyNumber_Negative(key);
        if (keep == NULL || PyDict_SetItem(memo, key, out) < 0 || PyDict_SetItem(memo, keep, value) < 0) Py_CLEAR(out);
        Py_XDECREF(keep);
    }
    Py_DECREF(key);
    return out;
}

static int read_args(PyObject *const *args, Py_ssize_t nargs, const char *name, PyObject **memo, PyObject **kinds) {
    if (nargs != 4) {
        PyErr_Format(PyExc_TypeError, "%s(value, memo, kinds, slow): 4 arguments, got %zd", name, nargs);
        return -1;
    }
    if (!PyDict_Check(args[1]) || !PyDict_Check(args[2])) {
        PyErr_Format(PyExc_TypeError, "%s: memo and kinds are dicts", name);
        return -1;
    }
    *memo = args[1];
    *kinds = args[2];
    return 0;
}

static PyObject *py_copy(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    PyObject *memo, *kinds;
    if (read_args(args, nargs, "copy", &memo, &kinds) < 0) return NULL;
    return copy_of(args[0], memo, kinds, args[3]);
}

static PyObject *py_copy_each(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    PyObject *memo, *kinds;
    if (read_args(args, nargs, "copy_each", &memo, &kinds) < 0) return NULL;
    PyObject *items = PySequence_Tuple(args[0]);
    if (items == NULL) return NULL;
    PyObject *out = copy_items(items, memo, kinds, args[3]);
    Py_DECREF(items);
    return out;
}

static PyMethodDef methods[] = {
    {"copy", (PyCFunction)(void (*)(void))py_copy, METH_FASTCALL, "copy(value, memo, kinds, slow): a bot's copy of value"},
    {"copy_each", (PyCFunction)(void (*)(void))py_copy_each, METH_FASTCALL,
     "copy_each(items, memo, kinds, slow): a list of each item's copy"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_copyc", NULL, -1, methods};

PyMODINIT_FUNC PyInit__copyc(void) {
    object_new = PyObject_GetAttrString((PyObject *)&PyBaseObject_Type, "__new__");
    empty_args = PyTuple_New(0);
    if (object_new == NULL || empty_args == NULL) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m != NULL && PyModule_AddIntConstant(m, "VERSION", COPYC_VERSION) < 0) Py_CLEAR(m);
    return m;
}
