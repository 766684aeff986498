// SPDX-License-Identifier: MIT
// fmt's out-of-line part, compiled once for the mingw-w64 cross build and the static-runtime Linux
// build. Debian ships fmt's headers but neither a Windows library nor a static one, and
// FMT_HEADER_ONLY would compile format-inl.h into every file. This file plays the role of fmt's
// own src/format.cc: it defines the non-template functions of format-inl.h (FMT_FUNC) and
// instantiates the function templates that fmt's headers declare but do not define, for the
// character types and floating-point types the headers ask for.
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {
template FMT_API locale_ref::locale_ref(const std::locale& loc);
template FMT_API auto locale_ref::get<std::locale>() const -> std::locale;
template FMT_API auto dragonbox::to_decimal(float x) noexcept -> dragonbox::decimal_fp<float>;
template FMT_API auto dragonbox::to_decimal(double x) noexcept -> dragonbox::decimal_fp<double>;
template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<char>;
template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<wchar_t>;
template FMT_API auto decimal_point_impl(locale_ref) -> char;
template FMT_API auto decimal_point_impl(locale_ref) -> wchar_t;
} // namespace detail
FMT_END_NAMESPACE
