/* names.c - enum values from their names (names.h). */
#include "names.h"
#include <string.h>

int name_index(const char *s, const char *const *names, int count)
{
    for (int i = 0; s && i < count; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}
