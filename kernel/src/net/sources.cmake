# rtkit::net, part of the kernel library (it uses the worker's reactor).
target_sources(rtkit_kernel PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/byte_stream.cpp
  ${CMAKE_CURRENT_LIST_DIR}/connect_socket.cpp
  ${CMAKE_CURRENT_LIST_DIR}/io_operation.cpp
  ${CMAKE_CURRENT_LIST_DIR}/net_error.cpp
  ${CMAKE_CURRENT_LIST_DIR}/pipe.cpp
  ${CMAKE_CURRENT_LIST_DIR}/registered_fd.cpp
  ${CMAKE_CURRENT_LIST_DIR}/resolve.cpp
  ${CMAKE_CURRENT_LIST_DIR}/socket_address.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tcp_connect_by_name.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tcp_listener.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tcp_stream.cpp
  ${CMAKE_CURRENT_LIST_DIR}/udp_socket.cpp
  ${CMAKE_CURRENT_LIST_DIR}/unix_stream.cpp
)
