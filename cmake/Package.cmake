# Debian package through CPack: `cpack -G DEB` in a Release build tree (scripts/ci_package.sh does it all).
# The version comes from project(VERSION) in the top-level CMakeLists.txt, the one place the binary's --version
# also reads. Runtime library dependencies are not listed by hand: dpkg-shlibdeps (package dpkg-dev) reads them
# from the installed binary, so the control data always matches what the executable links.
set(CPACK_PACKAGE_NAME mfu-explorer)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "MFU Explorer developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Measure, predict, explain and value Model FLOPs Utilization")
set(CPACK_PACKAGE_DESCRIPTION
    "MFU Explorer is a Qt desktop application and command-line tool for people who train large models.\n\
It computes FLOP per token under the published formulas, achieved TFLOPS, MFU and HFU; predicts MFU with an\n\
analytic cost model and planner; imports PyTorch profiler and Nsight Systems traces to show where step time goes;\n\
and turns MFU into GPU-hours and cost.")
set(CPACK_PACKAGE_CONTACT "MFU Explorer developers <mfu-explorer@users.noreply.github.com>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)

set(CPACK_DEBIAN_PACKAGE_NAME mfu-explorer)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT) # mfu-explorer_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# libqt6svg6 (SVG icon engine plugin) comes through shlibdeps because the binary links Qt6::Svg; the xcb and
# offscreen platform plugins ship in libqt6gui6. Nothing needs listing by hand.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "shared-mime-info, desktop-file-utils, hicolor-icon-theme")
# The Python module (python/, installed in /usr/lib/python3/dist-packages) is built for one Python version's ABI; its
# DataFrames need pandas. The application itself needs neither.
if(MFU_PYTHON_DEBIAN_RELATION)
  string(APPEND CPACK_DEBIAN_PACKAGE_RECOMMENDS ", ${MFU_PYTHON_DEBIAN_RELATION}")
  set(CPACK_DEBIAN_PACKAGE_SUGGESTS "python3-pandas")
endif()
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/mfu-explorer/mfu-explorer")

set(CPACK_GENERATOR DEB)
set(CPACK_SOURCE_GENERATOR TGZ)
set(CPACK_SOURCE_IGNORE_FILES "/build/;/build-.*/;/\\\\.git/;/\\\\.cache/")
include(CPack)
