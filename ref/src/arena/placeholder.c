typedef int ar_arena_placeholder_t;
