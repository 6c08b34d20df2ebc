/* The planted library's one public name (tests/symbols). */
int ar_planted_declared(void);
