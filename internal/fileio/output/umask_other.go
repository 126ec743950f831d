//go:build !unix

package output

import "os"

// umask: systems without one behave as the usual 022.
var umask os.FileMode = 0o022
