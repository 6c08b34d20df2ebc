/* The consumer compiled as C++ (the build sets the standard: C++11). */
#include "consumer.c"
