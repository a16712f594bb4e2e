/* output.c - filled in with the command. */
typedef int mintid_cli_placeholder;
