/* jv_bits: bit counting for the bit sets of the compact records (event indices, record indices, member
 * ranks). Header only: the count is inlined where it is read. */
#ifndef JV_BITS_H
#define JV_BITS_H

#include <stdint.h>

/* The count without the instruction: SWAR (a dozen arithmetic instructions, no table, no call). */
static inline uint32_t jv_popcount64_swar(uint64_t x) {
    x = x - ((x >> 1) & UINT64_C(0x5555555555555555));
    x = (x & UINT64_C(0x3333333333333333)) + ((x >> 2) & UINT64_C(0x3333333333333333));
    x = (x + (x >> 4)) & UINT64_C(0x0F0F0F0F0F0F0F0F);
    return (uint32_t)((x * UINT64_C(0x0101010101010101)) >> 56);
}

#if (defined(__x86_64__) || defined(__i386__)) && !defined(__POPCNT__) && defined(__GNUC__)
/* x86 built for a CPU that may lack POPCNT (the default x86-64 target): __builtin_popcountll is then a call
 * into libgcc's table-free loop; this takes the instruction where the CPU has it (every x86-64 since 2008). */
__attribute__((target("popcnt"))) static inline uint32_t jv_popcount64_hw_(uint64_t x) {
    return (uint32_t)__builtin_popcountll(x);
}
/* The number of set bits of x. */
static inline uint32_t jv_popcount64(uint64_t x) {
    return __builtin_cpu_supports("popcnt") ? jv_popcount64_hw_(x) : jv_popcount64_swar(x);
}
#else
/* The number of set bits of x (the instruction where the target has one). */
static inline uint32_t jv_popcount64(uint64_t x) {
    return (uint32_t)__builtin_popcountll(x);
}
#endif

#endif
