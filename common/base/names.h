/* names.h - an enum spelled as strings: a table of names indexed by the
 * enum's values gives the name of a value (names[v]) and, through
 * name_index(), the value of a name, so the two never disagree. */
#ifndef DAR_NAMES_H
#define DAR_NAMES_H

/* The index of s in names[0 .. count), or -1 if it is not there (or s is NULL). */
int name_index(const char *s, const char *const *names, int count);

#endif
