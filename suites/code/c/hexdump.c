/*
 * hexdump.c - print a file as offset, hex bytes and printable ASCII,
 * similar to `xxd -g1`. Build: cc -std=c11 -O2 -Wall -Wextra -o hexdump hexdump.c
 *
 * Usage: hexdump [-n LENGTH] [-s OFFSET] [-w WIDTH] [FILE]
 */
#define _POSIX_C_SOURCE 200809L

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_WIDTH 16
#define MAX_WIDTH 64

static long parse_number(const char *s, const char *what)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 0); /* accepts 0x1F, 017 and 42 */
    if (errno != 0 || end == s || *end != '\0' || v < 0) {
        fprintf(stderr, "hexdump: invalid %s: '%s'\n", what, s);
        exit(2);
    }
    return v;
}

static void dump_line(unsigned long offset, const unsigned char *buf, size_t n, size_t width)
{
    printf("%08lx: ", offset);
    for (size_t i = 0; i < width; i++) {
        if (i < n)
            printf("%02x ", buf[i]);
        else
            fputs("   ", stdout);
        if (i % 8 == 7)
            putchar(' ');
    }
    putchar('|');
    for (size_t i = 0; i < n; i++)
        putchar(isprint(buf[i]) ? buf[i] : '.');
    puts("|");
}

int main(int argc, char **argv)
{
    long length = -1, skip = 0, width = DEFAULT_WIDTH;
    int opt;

    while ((opt = getopt(argc, argv, "n:s:w:h")) != -1) {
        switch (opt) {
        case 'n': length = parse_number(optarg, "length"); break;
        case 's': skip = parse_number(optarg, "offset"); break;
        case 'w': width = parse_number(optarg, "width"); break;
        case 'h':
        default:
            fprintf(stderr, "usage: %s [-n LENGTH] [-s OFFSET] [-w WIDTH] [FILE]\n", argv[0]);
            return opt == 'h' ? 0 : 2;
        }
    }
    if (width < 1 || width > MAX_WIDTH) {
        fprintf(stderr, "hexdump: width must be between 1 and %d\n", MAX_WIDTH);
        return 2;
    }

    FILE *in = stdin;
    if (optind < argc && strcmp(argv[optind], "-") != 0) {
        in = fopen(argv[optind], "rb");
        if (!in) {
            fprintf(stderr, "hexdump: %s: %s\n", argv[optind], strerror(errno));
            return 1;
        }
    }
    if (skip > 0 && fseek(in, skip, SEEK_SET) != 0) {
        fprintf(stderr, "hexdump: cannot seek to %ld\n", skip);
        return 1;
    }

    unsigned char buf[MAX_WIDTH];
    unsigned long offset = (unsigned long)skip;
    size_t n;
    while (length != 0) {
        size_t want = (size_t)width;
        if (length > 0 && (size_t)length < want)
            want = (size_t)length;
        n = fread(buf, 1, want, in);
        if (n == 0)
            break;
        dump_line(offset, buf, n, (size_t)width);
        offset += n;
        if (length > 0)
            length -= (long)n;
    }
    int failed = ferror(in);
    if (in != stdin)
        fclose(in);
    return failed ? 1 : 0;
}
