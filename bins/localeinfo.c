/* localeinfo: what a program sees of its locale (tests/test_locale.py, against native runs):
 * setlocale(LC_ALL, "")'s answer, the codeset, and strcoll's order of two strings. */
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    const char *name = setlocale(LC_ALL, "");
    printf("setlocale: %s\n", name ? name : "(null)");
    printf("codeset: %s\n", nl_langinfo(CODESET));
    printf("mblen(\"\\303\\251\"): %d\n", mblen("\303\251", 2));
    printf("strcoll(\"\\303\\251\", \"z\") > 0: %d\n", strcoll("\303\251", "z") > 0);
    return 0;
}
