/*
 * A small JSON reader for the selection rules and the measurements
 * pacoll-tune reads: objects, arrays, strings (\u escapes become UTF-8;
 * \u0000 is an error, as no C string can hold it), numbers, true, false, null.  Enough for data
 * files the project writes;
 * errors give the line and column, and every value its line, so a rule's
 * own error can say where it is.
 */
#ifndef PACOLL_JSON_H
#define PACOLL_JSON_H

#include <stddef.h>

typedef enum { PC_JNULL, PC_JBOOL, PC_JNUM, PC_JSTR, PC_JARR, PC_JOBJ } pc_jtype_t;

typedef struct pc_json {
    pc_jtype_t type;
    double num;            /* JNUM, JBOOL (0/1) */
    char *str;             /* JSTR */
    char *key;             /* member name when inside an object */
    struct pc_json *child; /* JARR, JOBJ: first element */
    struct pc_json *next;  /* next sibling */
    int line;              /* where the value starts in the text (1-based) */
} pc_json_t;

/* Parses text; NULL on error with a message in err. */
pc_json_t *pc_json_parse(const char *text, char *err, size_t errlen);
void pc_json_free(pc_json_t *j);
/* Member of an object by name, or NULL. */
const pc_json_t *pc_json_get(const pc_json_t *obj, const char *key);

#endif
